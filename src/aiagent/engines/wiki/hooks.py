"""The skill hook ``on_before_wiki_section``: before a page is written, the hooks of the
skills active for the wiki see it and may add to it.

Which skills: those of :func:`~aiagent.engines.wiki.skillpages.active_skill_wikis` that have
code (an ``implementation``), activated through the skill runtime as everywhere else
(permissions asked for or pre-approved, a project's skills with code only in a trusted
folder). The event is ``{"section": {"path", "title", "markdown"}, "project": {"root",
"name"}}``; a hook returns ``hook_result(inject_prompt=...)``: Markdown added at the end of
the page under a line naming the skill, made inert like every skill text (no raw HTML, no
images, http(s)/mailto links only), at most :data:`MAX_ADDED` characters.

A hook that fails, returns junk or runs past ``[wiki] hook_timeout`` seconds (default 10)
is reported once, and that skill's wiki hooks are off for the rest of the run; the wiki is
still written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.agent.skills.approvals import terminal_approver
from aiagent.engines.wiki.pages import Page, code
from aiagent.engines.wiki.skillpages import inert_markdown

if TYPE_CHECKING:
    import asyncio

    from aiagent.agent.skills.runtime import SkillRuntime
    from aiagent.engines.wiki.skillpages import SkillWiki

PHASE = "on_before_wiki_section"
MAX_ADDED = 16_000

Say = Callable[[str], None]


@dataclass(slots=True)
class SectionHooks:
    runtime: SkillRuntime
    runner: asyncio.Runner
    say: Say
    skills: list[str] = field(default_factory=list)  # skills with a wiki-section hook, in order
    problems: list[str] = field(default_factory=list)

    def apply(self, pages: list[Page], root: Path, name: str) -> list[Page]:
        """Every page through the hooks, in page order."""
        if not self.skills:
            return pages
        return [self._page(page, root, name) for page in pages]

    def _page(self, page: Page, root: Path, name: str) -> Page:
        added: list[str] = []
        for skill in list(self.skills):
            event = {"section": {"path": page.path, "title": page.title, "markdown": page.body},
                     "project": {"root": str(root), "name": name}}
            seen = len(self.problems)
            results = self.runner.run(self.runtime.bus.fire(PHASE, event, only=skill))
            if len(self.problems) > seen:
                self.skills.remove(skill)
                self.say(f"skills: {self.problems[-1]}; {skill}'s wiki hooks are off for the rest of this run")
                continue
            added += [_added(skill, r.inject_prompt) for _, r in results if r.inject_prompt.strip()]
        if not added:
            return page
        return Page(page.path, page.title, page.body.rstrip("\n") + "\n\n" + "\n\n".join(added) + "\n")

    def close(self) -> None:
        try:
            self.runner.run(self.runtime.close())
        finally:
            self.runner.close()


def _added(skill: str, text: str) -> str:

    cut = len(text) > MAX_ADDED
    body = inert_markdown(text[:MAX_ADDED]).rstrip("\n")
    note = f"\n\n_(cut at {MAX_ADDED} characters)_" if cut else ""
    return f"_Added by the skill {code(skill)}:_\n\n{body}{note}"


def open_hooks(make_runtime: Any, settings: Any, root: Path, skills: tuple[SkillWiki, ...],
               say: Say) -> SectionHooks | None:
    """The hooks of ``skills`` that have code, activated; None when none registers one.
    ``make_runtime``: the front-end's skill runtime factory (``Application.skill_runtime``:
    the one set-up path), called with the wiki's mode and skills."""
    with_code = [s.name for s in skills if s.has_code]
    if not with_code or settings is None or make_runtime is None:
        return None
    import asyncio


    problems: list[str] = []
    runtime = make_runtime(mode="wiki", explicit=with_code, approver=terminal_approver(),
                           report=problems.append)
    runtime.services.root = root
    runtime.bus.timeout = settings.wiki.hook_timeout  # validated at load (schema.json)
    runner = asyncio.Runner()
    hooks = SectionHooks(runtime, runner, say, problems=problems)
    for name in with_code:
        try:
            runner.run(runtime.activate(name, "wiki"))
        except Exception as exc:  # noqa: BLE001 - a skill that cannot load is reported, the wiki goes on
            say(f"skills: {name} did not load ({_one_line(exc)}); its wiki hooks are not run")
    for line in problems:
        say(f"skills: {line}")
    problems.clear()
    hooks.skills = list(dict.fromkeys(h.skill for h in runtime.bus.hooks if h.phase == PHASE))
    if hooks.skills:
        say(f"skills: {PHASE} hooks of {', '.join(hooks.skills)}")
    return hooks


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return (lines[-1] if lines else type(exc).__name__)[:300]
