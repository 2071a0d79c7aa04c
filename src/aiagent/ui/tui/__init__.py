"""The interactive terminal UI (``aiagent`` with no prompt).

:func:`run_interactive` is the entry point; it imports the UI only when called, so the
rest of the CLI stays fast. See ``docs/interactive.md`` for keys and commands.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def run_interactive(options: dict[str, Any], cwd: Path, env: dict[str, str] | None = None) -> int:
    """Run the UI until the user quits; returns the exit code."""
    import asyncio

    from aiagent.ui.tui.app import InteractiveApp
    from aiagent.ui.tui.terminal import detect

    env = dict(os.environ if env is None else env)
    app = InteractiveApp(options, cwd, env, detect(env))
    try:
        return asyncio.run(app.main())
    except KeyboardInterrupt:
        return 130
