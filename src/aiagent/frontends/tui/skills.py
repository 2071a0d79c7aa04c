"""``/skills`` and ``/skill NAME``: the skills found, with their state, and activation by
hand through the agent's skill runtime (``agent.skills``, a
:class:`aiagent.agent.skills.runtime.SkillRuntime`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiagent.agent.skills.backends.base import BackendError
from aiagent.agent.skills.context import SkillError
from aiagent.agent.skills.permissions import MemoryGrantStore, PermissionDenied
from aiagent.app import Application
from aiagent.frontends.tui import render
from aiagent.frontends.tui.blocks import one_line

if TYPE_CHECKING:
    from aiagent.agent.skills.runtime import SkillRuntime
    from aiagent.frontends.tui.app import InteractiveApp

STYLES = {"active": "green", "available": "", "disabled": "dim", "unavailable": "dim",
          "error": "red", "broken": "red"}
PROBLEMS = ("error", "broken", "unavailable")


@dataclass(frozen=True, slots=True)
class SkillRow:
    name: str
    state: str  # active | available | disabled | unavailable | error | broken
    types: str
    detail: str  # the description, or what is wrong


def runtime_of(app: InteractiveApp) -> SkillRuntime | None:
    return getattr(app.agent, "skills", None)


def skill_errors() -> tuple[type[BaseException], ...]:
    """What activating or running a skill raises, each with one clear line."""

    return (BackendError, PermissionDenied, SkillError, LookupError, ValueError)


def skill_rows(runtime: SkillRuntime) -> list[SkillRow]:
    rows = []
    for name, entry in sorted(runtime.entries.items()):
        m = entry.manifest
        types, about = ",".join(m.types), " ".join(m.description.split())
        problem = runtime.usable(m)
        if name in runtime.active:
            rows.append(SkillRow(name, "active", types, about))
        elif name in runtime.disabled:
            rows.append(SkillRow(name, "disabled", types, about))
        elif problem:
            rows.append(SkillRow(name, "unavailable", types, problem))
        elif name in runtime.errors:
            rows.append(SkillRow(name, "error", types, runtime.errors[name]))
        else:
            rows.append(SkillRow(name, "available", types, about))
    rows += [SkillRow(b.name, "broken", "", b.error) for b in runtime.broken]
    return rows


def row_lines(rows: list[SkillRow], width: int) -> list[Any]:
    """Name, state, types and description on one line; a problem in full below it."""
    from rich.padding import Padding
    from rich.text import Text

    name_w = min(24, max((len(r.name) for r in rows), default=4))
    type_w = min(14, max((len(r.types) for r in rows), default=4))
    lines: list[Any] = []
    for row in rows:
        text = Text(f"  {one_line(row.name, name_w):<{name_w}}  ", style="bold")
        text.append(f"{row.state:<11}", style=STYLES.get(row.state, ""))
        text.append(f"{row.types:<{type_w}}  ", style="dim")
        if row.state not in PROBLEMS:
            room = max(10, width - len(text.plain) - 1)
            text.append(one_line(row.detail, room))
        lines.append(text)
        if row.state in PROBLEMS:
            lines.append(Padding(Text(row.detail, style=STYLES[row.state]), (0, 0, 0, 6)))
    return lines


def _listing_runtime(app: InteractiveApp) -> SkillRuntime | None:
    """The agent's runtime, or (no agent: e.g. no API key) one made only to list skills."""
    runtime = runtime_of(app)
    if runtime is not None or app.settings is None:
        return runtime

    builder = Application(app.settings, interactive=True)
    return builder.skill_runtime(store=MemoryGrantStore(), report=lambda message: None)


async def show_skills(app: InteractiveApp, arg: str) -> None:
    """``/skills``."""
    if not await app.ready() or app.settings is None:
        return
    if not app.settings.skills.on:
        app.say(render.notice("skills are turned off ([skills] enabled = false)", "yellow"))
        return
    try:
        runtime = _listing_runtime(app)
    except Exception as exc:  # noqa: BLE001 - e.g. a bad [skills] table: one line
        app.say(render.notice(f"✗ {exc}", "red"))
        return
    rows = skill_rows(runtime) if runtime is not None else []
    if not rows:
        app.say(render.notice("no skills found (add some under .agent/skills/ or "
                              "~/.config/aiagent/skills/)"))
        return
    where = f"{app.workspace}/"
    rows = [SkillRow(r.name, r.state, r.types, r.detail.replace(where, "")) for r in rows]
    for line in row_lines(rows, app.screen.width()):
        app.say(line)
    app.say(render.notice("/skill NAME activates one", "dim"))


def skill_choices(app: InteractiveApp) -> list[tuple[str, str]]:
    """Completion for ``/skill``: the skills that can be activated now."""
    runtime = runtime_of(app)
    if runtime is None:
        return []
    return [(n, one_line(runtime.entries[n].manifest.description, 40))
            for n in runtime.available_names() if n not in runtime.active]


async def activate(app: InteractiveApp, name: str) -> bool:
    """``/skill NAME``: activate it (asking for its permissions on first use), offer its
    tools to the model and put its instructions in the system prompt."""
    runtime = runtime_of(app)
    if runtime is None:
        why = "skills are turned off ([skills] enabled = false)" if app.agent is not None \
            else "no agent"
        app.say(render.notice(f"✗ cannot activate {name}: {why}", "red"))
        return False
    if name in runtime.active:
        app.say(render.notice(f"skill {name} is already active"))
        return True
    before_tools, before_skills = set(runtime.tool_objects), set(runtime.active)
    try:
        await runtime.activate(name, "/skill", approver=app.skill_approvals)
    except skill_errors() as exc:
        app.say(render.notice(f"✗ {exc}", "red"))
        return False
    runtime.changes.tools([n for n in runtime.tool_objects if n not in before_tools], [])
    runtime.changes.prompt()
    app.say(render.notice(activated_text(runtime, name, before_skills), "green"))
    return True


def activated_text(runtime: SkillRuntime, name: str, before: set[str]) -> str:
    skill = runtime.active[name]
    parts = [f"✓ skill {name} active"]
    if skill.tools:
        parts.append("tools: " + ", ".join(skill.tools))
    if skill.workflows:
        parts.append("commands: " + ", ".join(f"/{w}" for w in skill.workflows))
    also = [n for n in runtime.active if n not in before and n != name]
    if also:
        parts.append("with " + ", ".join(also))
    return " · ".join(parts)


async def skill_command(app: InteractiveApp, arg: str) -> None:
    """``/skill NAME`` (without a name: the list)."""
    if not arg:
        await show_skills(app, "")
        return
    if not await app.ready():
        return
    await activate(app, arg.split()[0])
