"""At start-up in an untrusted folder that brings skills with code or config that widens
permissions: ask once whether to trust it — always (``aiagent trust``), for this session
only, or not (then those are skipped, as in headless mode).

Asked before the input line opens, with one key on a terminal or one line otherwise. A
folder without such content (the common case) costs a few ``stat`` calls and no question.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.frontends.tui.prepare import load_settings
from aiagent.frontends.tui.terminal import KeyReader
from aiagent.infra.config.paths import project_root

if TYPE_CHECKING:
    from aiagent.frontends.tui.screen import Screen
    from aiagent.frontends.tui.terminal import TermInfo

MARKERS = (".agent/config.toml", ".agent/skills", ".claude/skills", ".agents/skills", "AGENT.md", "AGENTS.md")
ANSWERS = {"a": "always", "o": "once", "n": "no"}


def might_hold_content(cwd: Path) -> bool:
    """Cheap: does the project (or the folder) have anything trust could hold back?"""

    folders = {project_root(cwd), cwd.resolve()}
    return any((folder / marker).exists() for folder in folders for marker in MARKERS)


def held_back(cwd: Path, options: dict[str, Any], env: dict[str, str]) -> tuple[Any, list[str]]:
    """(the trust decision, what it holds back) for the folder and options."""
    from aiagent.agent.skills.factory import held_back as factory_held_back

    settings = load_settings(cwd, options, env)
    return settings.trust, factory_held_back(settings)


def question(root: Path, items: list[str]) -> str:
    skills = [i for i in items if " (" in i]
    keys = [i for i in items if " (" not in i]
    lines = [f"This folder is not trusted: {root}",
             "It brings code or settings that take effect only in a folder you trust:"]
    if skills:
        lines.append(f"  skills with code: {', '.join(skills)}")
    if keys:
        lines.append(f"  config that widens permissions: {', '.join(keys)}")
    lines.append("Trust this folder?  [a] always (aiagent trust)  [o] this session only  [n] no")
    return "\n".join(lines) + "\n"


async def confirm_trust(screen: Screen, frame: Any, cwd: Path, options: dict[str, Any],
                        env: dict[str, str]) -> bool:
    """Ask, and apply the answer: store the folder (always), or return True (this session
    only: the caller sets ``--trust``)."""
    if options.get("trust") or not might_hold_content(cwd):
        return False
    try:
        trust, items = await asyncio.to_thread(held_back, cwd, options, env)
    except Exception:  # noqa: BLE001 - a bad config is reported by the normal start-up
        return False
    if trust is None or trust.trusted or not items:
        return False
    if frame is not None:  # the painted first screen gives the terminal back before we ask
        frame.release()
        screen.write("\n")
    screen.write(question(trust.root, items))
    answer = await _answer(screen.term)
    if answer == "always":
        from aiagent.infra.config.trust import TrustStore, store_file

        TrustStore(store_file(env)).add(trust.root)
        screen.write(f"✓ trusted {trust.root} (undo with `aiagent untrust`)\n")
    elif answer == "once":
        screen.write("✓ trusted for this session\n")
    else:
        screen.write("✗ not trusted: its skills with code and those settings are skipped\n")
    return answer == "once"


async def _answer(term: TermInfo) -> str:
    """One key on a terminal, one line otherwise; Esc, Ctrl-C or end of input mean no."""
    if not term.tty:
        line = await asyncio.to_thread(sys.stdin.readline)
        return ANSWERS.get(line.strip().lower()[:1], "no")

    with KeyReader() as keys:
        while True:
            key = await keys.get()
            if key in ANSWERS or key in ("escape", "c-c", "c-d"):
                return ANSWERS.get(key, "no")
