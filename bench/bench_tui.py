"""Interactive UI figures: launch → first screen, launch → line editor live, idle RSS,
RSS with a 500-message session open — beside ``python -c pass`` in the same pty, as a floor.

Each launch runs the real ``aiagent`` in a pseudo-terminal (120×40 unless told) with its
own HOME and XDG folders. "First screen" is the moment the input line's prompt mark (›)
reaches the terminal: the banner, input line and status line are drawn, and keys typed
from then on are kept (the terminal does not echo them) and edited in order. "Editor
live" is the moment a key typed right after the mark is echoed by the line editor
(prompt_toolkit), which is imported after the first screen. The agent itself (provider,
tools, session store) is built after that, in the background; idle RSS is read once it
is. The 500-message session (250 prompts, 250 answers with Markdown and code, every 5th
with a tool call and result) is written to the store directly and opened with
``--resume``, which renders its history.

The child runs with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` is dropped), as an
installed aiagent has compiled ``.pyc`` files; the warm-up runs write them.
``--baseline-src DIR`` also measures the aiagent source in DIR (e.g. an older checkout:
``git archive REV src | tar -x -C DIR``), alternating run by run so both see the same load.

Targets (issue 13): first screen median ≤ 100 ms (was ~160 ms); (issue 7) idle RSS
≤ 100 MB, 500-message session RSS ≤ 200 MB.

Run: .venv/bin/python bench/bench_tui.py [--runs N] [--size 120x40] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
MARK = "›".encode()
PROBE = b"qz7"  # typed after the mark; its echo means the line editor is running
FLOOR = [sys.executable, "-c", "pass"]


def environment(home: Path, columns: int, lines: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC", "OPENAI")) and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local/share"), ANTHROPIC_API_KEY="bench",
               ANTHROPIC_BASE_URL="http://127.0.0.1:9", TERM="xterm-256color",
               COLUMNS=str(columns), LINES=str(lines), PROMPT_TOOLKIT_NO_CPR="1",
               AIAGENT_NO_HISTORY="1")
    return env


class Launch:
    """``aiagent ARGS`` in a pseudo-terminal."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path,
                 argv0: list[str] | None = None, size: tuple[int, int] = (120, 40)) -> None:
        import fcntl
        import struct
        import termios

        program = argv0 or [AIAGENT]
        winsize = struct.pack("HHHH", size[1], size[0], 0, 0)
        self.start = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: its terminal gets the size, then the program runs
            fcntl.ioctl(0, termios.TIOCSWINSZ, winsize)
            os.chdir(cwd)
            os.execve(program[0], [*program, *args], env)
        self.buffer = b""

    def wait_for(self, needle: bytes, timeout: float = 20.0, start: int = 0) -> float:
        """Seconds from launch until ``needle`` appears in the output (past ``start``)."""
        deadline = time.perf_counter() + timeout
        while needle not in self.buffer[start:]:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no {needle!r} after {timeout}s: {self.buffer[-300:]!r}")
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if ready:
                try:
                    self.buffer += os.read(self.fd, 65536)
                except OSError:
                    break
        return time.perf_counter() - self.start

    def drain(self, seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    self.buffer += os.read(self.fd, 65536)
                except OSError:
                    return

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def floor_time(env: dict[str, str], cwd: Path) -> float:
    """``python -c pass`` in the same kind of pty: ms until it exits."""
    launch = Launch([], env, cwd, argv0=FLOOR)
    try:
        _, status = os.waitpid(launch.pid, 0)
        return (time.perf_counter() - launch.start) * 1000
    finally:
        os.close(launch.fd)


def launch_once(env: dict[str, str], cwd: Path, size: tuple[int, int]) -> tuple[float, float]:
    """(ms to the first screen, ms until the line editor echoes a key typed at once)."""
    launch = Launch([], env, cwd, size=size)
    try:
        first = launch.wait_for(MARK) * 1000
        seen = len(launch.buffer)
        os.write(launch.fd, PROBE)
        launch.wait_for(PROBE, start=seen)
        return first, (time.perf_counter() - launch.start) * 1000
    finally:
        launch.close()


def launch_times(runs: int, envs: dict[str, dict[str, str]], cwd: Path,
                 size: tuple[int, int]) -> dict[str, list[float]]:
    """Every measure for every source, alternating run by run (plus the floor)."""
    times: dict[str, list[float]] = {"floor": []}
    for _ in range(runs):
        times["floor"].append(floor_time(next(iter(envs.values())), cwd))
        for name, env in envs.items():
            first, live = launch_once(env, cwd, size)
            times.setdefault(f"{name} first", []).append(first)
            times.setdefault(f"{name} live", []).append(live)
    return times


def idle_rss(env: dict[str, str], cwd: Path, args: list[str] | None = None,
             settle: float = 3.0) -> float:
    launch = Launch(args or [], env, cwd)
    try:
        launch.wait_for(MARK)
        launch.drain(settle)  # the agent is built in the background
        return launch.rss_mb()
    finally:
        launch.close()


ANSWER = """Here is what I found in `module_{n}.py`:

1. The function `load_{n}` reads the file **twice**.
2. The cache is never invalidated.

```python
def load_{n}(path: str) -> dict[str, int]:
    with open(path) as handle:
        return {{line.strip(): {n} for line in handle}}
```

I suggest reading it once and keeping the result.
"""


def make_session(env: dict[str, str], workspace: Path, count: int = 500) -> str:
    """A stored session of ``count`` messages in ``workspace``; returns its id."""
    os.environ.update({k: env[k] for k in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME")})
    from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
    from aiagent.infra.store.sessions import SessionStore

    store = SessionStore.open(env)
    info = store.create(workspace, provider="anthropic", model="claude-sonnet-4-5",
                        title="benchmark session")
    seq = 0
    for n in range(count // 2):
        prompt = Message.user(f"Look at module_{n}.py and tell me what is wrong with it.")
        blocks: list = [TextBlock(ANSWER.format(n=n))]
        if n % 5 == 0:
            blocks.append(ToolUseBlock(f"call{n}", "read_file", {"file_path": f"module_{n}.py"}))
        store.append(info.id, seq, prompt)
        store.append(info.id, seq + 1, Message("assistant", blocks))
        seq += 2
        if n % 5 == 0:
            result = Message("user", [ToolResultBlock(f"call{n}", "x = 1\n" * 40)])
            store.append(info.id, seq, result)
            seq += 1
    store.close()
    return info.id


def report(times: dict[str, list[float]], idle: float, big: float, runs: int) -> None:
    floor = statistics.median(times["floor"])
    print(f"{'measure':<40}{'median':>8}{'min':>8}{'×floor':>8}{'target':>8}")
    print(f"{'python -c pass (floor), ms':<40}{floor:>8.0f}{min(times['floor']):>8.0f}")
    for name, values in times.items():
        if name == "floor":
            continue
        source, measure = name.rsplit(" ", 1)
        label = ("launch → first screen" if measure == "first" else "launch → editor live")
        target = "≤100" if measure == "first" and source == "current" else ""
        median = statistics.median(values)
        print(f"{f'{label} ({source}), ms':<40}{median:>8.0f}{min(values):>8.0f}"
              f"{median / floor:>8.1f}{target:>8}")
    print(f"{'idle RSS after start, MB':<40}{idle:>8.1f}{'':>16}{'≤100':>8}")
    print(f"{'RSS, 500-message session, MB':<40}{big:>8.1f}{'':>16}{'≤200':>8}")
    print(f"(runs: {runs}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--size", default="120x40", help="COLUMNSxLINES of the pty")
    parser.add_argument("--baseline-src", type=Path, help="also measure the aiagent in DIR/src")
    args = parser.parse_args()
    columns, lines = (int(n) for n in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp) / "home", Path(tmp) / "project"
        (home / ".config").mkdir(parents=True)
        workspace.mkdir()
        env = environment(home, columns, lines)
        envs = {"current": env}
        if args.baseline_src:
            src = str((args.baseline_src / "src").resolve())
            envs = {"baseline": {**env, "PYTHONPATH": src}, "current": env}
        launch_times(2, envs, workspace, (columns, lines))  # warm the file cache and .pyc
        times = launch_times(args.runs, envs, workspace, (columns, lines))
        idle = idle_rss(env, workspace)
        session = make_session(env, workspace)
        big = idle_rss(env, workspace, ["--resume", session], settle=4.0)
    report(times, idle, big, args.runs)


if __name__ == "__main__":
    main()
