"""``!cmd`` in the terminal UI runs through the one process runner: it returns when the
shell exits (not at end-of-file of a pipe a background child holds), kills what the
command left behind, and keeps memory bounded whatever the command prints."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
import time
import uuid
from pathlib import Path

import psutil

from aiagent.frontends.tui.app import InteractiveApp
from aiagent.frontends.tui.shell import run_user_shell
from aiagent.frontends.tui.terminal import TermInfo

PLAIN = TermInfo(tty=False, color=False, dark=True, width=80)


def make_app(tmp_path: Path, out: object) -> InteractiveApp:
    env = {"PATH": os.environ["PATH"], "SHELL": "/bin/sh", "HOME": str(tmp_path)}
    return InteractiveApp({}, tmp_path, env, PLAIN, out=out)


def marked(marker: str) -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if proc.info["status"] != psutil.STATUS_ZOMBIE and marker in " ".join(proc.info["cmdline"] or []):
            found.append(proc.pid)
    return found


def test_background_child_does_not_freeze_the_ui(tmp_path: Path) -> None:
    out = open(os.devnull, "w")  # noqa: SIM115 - closed below
    app = make_app(tmp_path, out)
    marker = f"bg-{uuid.uuid4().hex}"
    start = time.monotonic()
    asyncio.run(run_user_shell(app, f"sh -c 'sleep 6' {marker} & echo hi"))
    took = time.monotonic() - start
    out.close()
    assert took < 3.0, f"!cmd took {took:.1f} s"
    shared = app.next_message.items[-1]
    assert "\nhi\n" in shared and "[exit code 0]" in shared
    assert marked(marker) == []  # the background sleep was ended with the command


def test_the_exact_command_from_the_report(tmp_path: Path) -> None:
    out = open(os.devnull, "w")  # noqa: SIM115 - closed below
    app = make_app(tmp_path, out)
    start = time.monotonic()
    asyncio.run(run_user_shell(app, "sleep 6 & echo hi"))
    out.close()
    assert time.monotonic() - start < 3.0
    assert "\nhi\n" in app.next_message.items[-1]


def test_plain_output_and_exit_code_are_shared(tmp_path: Path) -> None:
    import io

    out = io.StringIO()
    app = make_app(tmp_path, out)
    asyncio.run(run_user_shell(app, "echo one; echo two >&2; exit 3"))
    shared = app.next_message.items[-1]
    assert "one\n" in shared and "two\n" in shared and "[exit code 3]" in shared
    assert "one" in out.getvalue() and "exit code 3 · shared" in out.getvalue()


def test_huge_output_keeps_memory_bounded(tmp_path: Path) -> None:
    out = open(os.devnull, "w")  # noqa: SIM115 - closed below
    app = make_app(tmp_path, out)
    me = psutil.Process()
    base = me.memory_info().rss
    peak = [base]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], me.memory_info().rss)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    script = ("import sys\nline = b'x' * 99 + b'\\n'\nblock = line * 10000\n"
              "for _ in range(500): sys.stdout.buffer.write(block)\nprint('the end')")
    (tmp_path / "flood.py").write_text(script)
    try:
        asyncio.run(run_user_shell(app, f"{sys.executable} flood.py"))
    finally:
        done.set()
        sampler.join()
        out.close()
    growth = (peak[0] - base) / 1e6
    shared = app.next_message.items[-1]
    assert shared.endswith("the end\n[exit code 0]\n</user-shell-command>")
    dropped = re.search(r"\[… (\d+) bytes not kept in memory …\]", shared)
    assert dropped and int(dropped.group(1)) > 499_000_000  # all 500 MB went through
    assert len(shared) < 40_000
    assert growth < 100, f"RSS grew {growth:.0f} MB for 500 MB of output"
