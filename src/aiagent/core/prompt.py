"""The system prompt: base instructions + project rules + skill fragments.

Project rules come from ``AGENT.md`` and ``AGENTS.md`` (the convention other agents share):
the user's own (in the config folder) first, then each folder from the project root down to
the working folder, so the nearest rules come last and weigh most.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from aiagent.contracts.prompt import PromptFragment

RULE_FILES = ("AGENT.md", "AGENTS.md")
MAX_RULES_BYTES = 64 * 1024
BASE_PROMPTS = {"native": "prompts/system.md", "tags": "prompts/system_tags.md"}
#: Fragments that tell the model to call a tool; with the tags protocol the model has no
#: tools to call, so they are left out (the skills index asks for ``activate_skill``).
TOOL_FRAGMENTS = frozenset({"Skills"})


def base_prompt(workspace: Path, protocol: str = "native") -> str:
    """The base instructions for a tool protocol: ``native`` tool calls or ``tags``."""
    path = BASE_PROMPTS.get(protocol, BASE_PROMPTS["native"])
    template = resources.files("aiagent.core").joinpath(path).read_text("utf-8")
    return template.format(workspace=workspace, platform=sys.platform).strip()


def rule_files(workspace: Path, root: Path, user_dir: Path | None) -> list[Path]:
    """Rule files that apply to ``workspace``, outermost first."""
    folders: list[Path] = []
    if user_dir is not None:
        folders.append(user_dir)
    workspace, root = workspace.resolve(), root.resolve()
    chain = [workspace, *workspace.parents]
    chain = chain[: chain.index(root) + 1] if root in chain else [workspace]
    folders.extend(reversed(chain))
    found: list[Path] = []
    for folder in folders:
        for name in RULE_FILES:
            path = folder / name
            if path.is_file() and path not in found:
                found.append(path)
    return found


def read_rules(files: Iterable[Path]) -> list[PromptFragment]:
    fragments = []
    for path in files:
        try:
            raw = path.read_bytes()[:MAX_RULES_BYTES]
        except OSError:
            continue
        text = raw.decode("utf-8", errors="replace").strip()
        if text:
            fragments.append(PromptFragment(f"Rules from {path}", text))
    return fragments


def build_system_prompt(
    workspace: Path,
    *,
    rules: Iterable[PromptFragment] = (),
    fragments: Iterable[PromptFragment] = (),
    base: str | None = None,
    protocol: str = "native",
) -> str:
    """With ``protocol="tags"`` the prompt names no tool: the tags base text, and no
    fragment that asks for a tool call."""
    parts = [base if base is not None else base_prompt(workspace, protocol)]
    if protocol == "tags":
        fragments = [f for f in fragments if f.title not in TOOL_FRAGMENTS]
    rules = list(rules)
    if rules:
        parts.append("# Project rules\nFollow these instructions from the project and user.")
        parts.extend(f"## {f.title}\n\n{f.text}" for f in rules)
    parts.extend(f"# {f.title}\n\n{f.text}" for f in fragments)
    return "\n\n".join(parts)
