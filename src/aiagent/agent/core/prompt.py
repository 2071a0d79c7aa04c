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

from aiagent.agent.core.protocols import make_protocol
from aiagent.contracts.prompt import PromptFragment

RULE_FILES = ("AGENT.md", "AGENTS.md")
MAX_RULES_BYTES = 64 * 1024


def base_prompt(workspace: Path, protocol: str = "native") -> str:
    """The base instructions for a tool protocol (:mod:`aiagent.agent.core.protocols`)."""
    path = make_protocol(protocol, {}).base_prompt
    template = resources.files("aiagent.agent.core").joinpath(path).read_text("utf-8")
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
    """The protocol's base text, and only the fragments it can follow (with ``tags`` the
    prompt names no tool: the skills index, which asks for ``activate_skill``, is left out)."""
    parts = [base if base is not None else base_prompt(workspace, protocol)]
    hidden = make_protocol(protocol, {}).hidden_fragments
    fragments = [f for f in fragments if f.title not in hidden]
    rules = list(rules)
    if rules:
        parts.append("# Project rules\nFollow these instructions from the project and user.")
        parts.extend(f"## {f.title}\n\n{f.text}" for f in rules)
    parts.extend(f"# {f.title}\n\n{f.text}" for f in fragments)
    return "\n\n".join(parts)
