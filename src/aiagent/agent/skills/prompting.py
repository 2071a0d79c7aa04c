"""Prompt text from skills: the index (names and descriptions, within a budget), an active
skill's instructions (within its ``max_context_tokens``), and what is shown when the model
activates a skill."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.resources import FileList, read_skill_file, skill_files
from aiagent.contracts.prompt import PromptFragment

CHARS_PER_TOKEN = 4
DEFAULT_INDEX_BUDGET = 6000  # characters (~1,500 tokens)
MAX_INDEX_DESCRIPTION = 400


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def index_text(skills: Iterable[Manifest], budget: int = DEFAULT_INDEX_BUDGET) -> str:
    """The skills index for the system prompt, never longer than ``budget`` characters.

    Descriptions are shortened step by step until every skill fits; if even the bare names
    do not fit, the list ends with how many were left out.
    """
    items = sorted(skills, key=lambda m: m.name)
    if not items:
        return ""
    head = ("These skills are available. When a task matches one, call the `activate_skill` "
            "tool with its name to load its instructions before you start.\n")
    for limit in (MAX_INDEX_DESCRIPTION, 120, 60, 0):
        lines = [f"- {m.name}: {_clip(_summary(m), limit)}" if limit else f"- {m.name}" for m in items]
        text = head + "\n".join(lines)
        if len(text) <= budget:
            return text
    kept: list[str] = []
    for i, line in enumerate(lines):
        tail = f"- … and {len(items) - i} more"
        if len(head) + sum(len(k) + 1 for k in kept) + len(line) + 1 + len(tail) > budget:
            return _clip(head + "\n".join([*kept, tail]), budget)
        kept.append(line)
    return _clip(head + "\n".join(kept), budget)


def _summary(m: Manifest) -> str:
    """The description, and when to use the skill if the manifest says so."""
    if not m.when_to_use:
        return m.description
    return f"{m.description.rstrip()} Use when: {m.when_to_use}"


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace").strip()
    except OSError:
        return ""


def instructions(m: Manifest) -> str:
    """The skill's prompt text, clipped to its token budget."""
    if m.prompt is None:
        return ""
    parts = []
    if m.prompt.system_prompt_file:
        parts.append(_read(m.root / m.prompt.system_prompt_file))
    if m.prompt.system_prompt:
        parts.append(m.prompt.system_prompt.strip())
    text = "\n\n".join(p for p in parts if p)
    limit = m.prompt.max_context_tokens * CHARS_PER_TOKEN
    if len(text) > limit:
        text = text[:limit].rstrip() + f"\n\n[… cut to the skill's {m.prompt.max_context_tokens}-token budget]"
    return text


def resource_list(m: Manifest) -> FileList:
    """The files the model may read: context files, files the instructions mention, and
    everything under scripts/, references/ and assets/ (see :mod:`aiagent.agent.skills.resources`)."""
    return skill_files(m, instructions(m))


def read_resource(m: Manifest, rel: str) -> str:
    """A file of the skill: its text within the skill's budget (a cut says so), or a
    description when it is binary (a PDF is never sent as text)."""
    return read_skill_file(m, rel)


def disclosure(m: Manifest, tools: list[str], workflows: list[str]) -> str:
    """What ``activate_skill`` answers: the instructions, the files, the new tools."""
    body = instructions(m) or "(this skill has no instructions)"
    lines = [f'<skill name="{m.name}" version="{m.version}" folder="{m.root}">', body, "</skill>"]
    files = resource_list(m)
    if files.files:
        lines.append("Files of this skill (read one with activate_skill name=" + m.name + " resource=PATH):")
        lines += [f"- {f}" for f in files.files]
    if files.omitted:
        lines.append(f"- … and {files.omitted} more files not listed (the list stops at {len(files.files)}); "
                     f"they are in {m.root}")
    if tools:
        lines.append("Tools now available: " + ", ".join(tools))
    if workflows:
        lines.append("Workflows now available (run_workflow): " + ", ".join(workflows))
    return "\n".join(lines)


class SkillPrompt:
    """The skills' part of the system prompt: active skills' instructions (until the model
    was shown them in the conversation), what hooks injected, and the index of the rest
    (within ``index_budget`` characters; 0 leaves it out)."""

    def __init__(self, index_budget: int = DEFAULT_INDEX_BUDGET) -> None:
        self.index_budget = index_budget

    def hide_index(self) -> None:
        """No index: the model cannot activate skills (no ``activate_skill`` tool)."""
        self.index_budget = 0

    def fragments(self, active: Iterable[tuple[str, Manifest, bool]],
                  injected: Iterable[tuple[str, str]], inactive: Iterable[Manifest]) -> list[Any]:
        """``active``: (name, manifest, its instructions go in the prompt); ``injected``:
        (skill, text) from hooks; ``inactive``: the usable skills not active."""

        out: list[PromptFragment] = []
        for name, m, in_prompt in active:
            text = instructions(m) if in_prompt else ""
            if text:
                out.append(PromptFragment(f"Skill: {name}", text))
        out += [PromptFragment(f"From skill {name}", text) for name, text in injected]
        index = self.index_budget > 0 and index_text(inactive, self.index_budget)
        if index:
            out.append(PromptFragment("Skills", index))
        return out
