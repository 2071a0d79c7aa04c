"""The interactive terminal UI (``aiagent`` with no prompt).

:func:`run_interactive` is the entry point; it imports the UI only when called, so the
rest of the CLI stays fast. See ``docs/interactive.md`` for keys and commands.

Start-up order matters for how soon the user sees a screen: the first frame (banner,
input line, status) is painted with the standard library alone (:mod:`.firstframe`);
asyncio, prompt_toolkit and the app are imported after it, and the agent is built after
the line editor is running.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def run_interactive(options: dict[str, Any], cwd: Path, env: dict[str, str] | None = None) -> int:
    """Run the UI until the user quits; returns the exit code."""
    from aiagent.frontends.tui.terminal import detect

    env = dict(os.environ if env is None else env)
    term = detect(env)
    frame = _paint(options, cwd, env, term)
    try:
        import asyncio

        from aiagent.frontends.tui.app import InteractiveApp

        app = InteractiveApp(options, cwd, env, term, frame=frame)
        return asyncio.run(app.main())
    except KeyboardInterrupt:
        return 130
    finally:
        if frame is not None:
            frame.release()


def _paint(options: dict[str, Any], cwd: Path, env: dict[str, str], term: Any) -> Any:
    """The first frame, for a fresh session in a terminal (a resumed one shows its
    history first, so it gets the banner only)."""
    if not term.tty or options.get("continue_session") or options.get("resume"):
        return None
    from aiagent import __version__
    from aiagent.frontends.tui.firstframe import paint

    try:
        return paint(__version__, str(cwd.resolve()), env, term.color)
    except OSError:  # no size: the app draws everything itself
        return None
