"""Run the interactive app in-process in line mode, typed lines fed through stdin."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import pytest

from aiagent.frontends.tui.app import InteractiveApp
from aiagent.frontends.tui.terminal import TermInfo


def run_app(lines: list[str], env: dict[str, str], cwd: Path, monkeypatch: pytest.MonkeyPatch,
            width: int = 80) -> tuple[int, str]:
    """(exit code, everything printed) after the app has read ``lines`` and quit."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    out = io.StringIO()
    plain = TermInfo(tty=False, color=False, dark=True, width=width)
    app = InteractiveApp({}, cwd, env, plain, out=out)
    code = asyncio.run(app.main())
    return code, out.getvalue()
