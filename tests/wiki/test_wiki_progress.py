"""The progress display of `aiagent wiki`: plain `wiki: …` log lines when stderr is not a
terminal or CI=true (through the real command), a live status line on a terminal (the real
command under a pseudo-terminal), and the modules/tokens hook the model passes call."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

from test_wiki_cli import make_repo

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
ANSI = re.compile(r"\x1b\[")


def test_plain_log_lines_in_ci(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    proc = run_cli("wiki", str(repo), "--no-security", "--no-model", env={"CI": "true"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert not ANSI.search(proc.stderr) and "\r" not in proc.stderr
    assert all(line.startswith("wiki: ") for line in lines), lines
    stages = [line.split(":")[1].strip() for line in lines]
    assert stages[:4] == ["scan", "model", "cluster", "analyse"] and stages[-1].startswith("wrote")


def _under_a_pty(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    master, slave = os.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def test_live_status_line_on_a_terminal(clean_env: dict[str, str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    env = {k: v for k, v in clean_env.items() if k != "CI"} | {"TERM": "xterm"}
    code, screen = _under_a_pty([AIAGENT, "wiki", str(repo), "--no-security"], env, tmp_path)
    assert code == 0, screen
    assert "✓ scan:" in screen and "✓ wrote" in screen and "\r\x1b[K… " in screen
    assert "wiki: scan:" not in screen
    assert screen.endswith("\r\x1b[K"), repr(screen[-80:])  # the status line is cleared at the end


def test_ci_wins_over_a_terminal(clean_env: dict[str, str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    code, screen = _under_a_pty([AIAGENT, "wiki", str(repo), "--no-security"],
                                clean_env | {"CI": "true", "TERM": "xterm"}, tmp_path)
    assert code == 0, screen
    assert "wiki: scan:" in screen and "\x1b[K" not in screen


def test_modules_and_usage_hook_plain() -> None:
    from aiagent.engines.wiki.progress import Progress

    out = io.StringIO()
    progress = Progress(out, live=False)
    progress("summaries: 30 modules")
    for done in range(1, 31):
        progress.modules(done, 30)
    progress.usage(12345, 0.0123)
    progress.close()
    lines = out.getvalue().splitlines()
    counts = [line for line in lines if line.startswith("wiki: modules:")]
    assert counts[0] == "wiki: modules: 1/30 done" and counts[-1] == "wiki: modules: 30/30 done"
    assert 3 <= len(counts) <= 12  # throttled, not one line per module
    assert lines[-1] == "wiki: 12,345 tokens, $0.0123"


def test_modules_and_usage_hook_live() -> None:
    from aiagent.engines.wiki.progress import Progress

    out = io.StringIO()
    ticks = iter(range(100))
    progress = Progress(out, live=True, clock=lambda: float(next(ticks)))
    progress("summaries: 3 modules")
    progress.modules(2, 3)
    progress.usage(1500, None)
    text = out.getvalue()
    assert "✓ summaries: 3 modules\n" in text
    assert text.endswith("\r\x1b[K… summaries · modules 2/3 · 1,500 tokens · 3s")
    progress.close()
    assert out.getvalue().endswith("\r\x1b[Kwiki: 1,500 tokens\n")
