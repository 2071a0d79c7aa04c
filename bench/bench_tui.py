"""Interactive UI figures: launch → input prompt ready, idle RSS, RSS with a 500-message
session open.

Each launch runs the real ``aiagent`` in a pseudo-terminal (80×24) with its own HOME and
XDG folders. "Prompt ready" is the moment the input line's prompt mark (›) reaches the
terminal: the line editor is running and keys typed from then on are edited in place.
The agent itself (provider, tools, session store) is built after that, in the
background; idle RSS is read once it is. The 500-message session (250 prompts, 250
answers with Markdown and code, every 5th with a tool call and result) is written to
the store directly and opened with ``--resume``, which renders its history.

Targets (issue 7): launch→prompt median ≤ 300 ms, idle RSS ≤ 100 MB, 500-message
session RSS ≤ 200 MB.

Run: .venv/bin/python bench/bench_tui.py [--runs N]
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


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local/share"), ANTHROPIC_API_KEY="bench",
               ANTHROPIC_BASE_URL="http://127.0.0.1:9", TERM="xterm-256color",
               COLUMNS="80", LINES="24", PROMPT_TOOLKIT_NO_CPR="1")
    return env


class Launch:
    """``aiagent ARGS`` in a pseudo-terminal."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.start = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            os.chdir(cwd)
            os.execve(AIAGENT, [AIAGENT, *args], env)
        self.buffer = b""

    def wait_for(self, needle: bytes, timeout: float = 20.0) -> float:
        """Seconds from launch until ``needle`` appears in the output."""
        deadline = time.perf_counter() + timeout
        while needle not in self.buffer:
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


def launch_times(runs: int, env: dict[str, str], cwd: Path) -> list[float]:
    times = []
    for _ in range(runs):
        launch = Launch([], env, cwd)
        try:
            times.append(launch.wait_for(MARK) * 1000)
        finally:
            launch.close()
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
    from aiagent.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
    from aiagent.store.sessions import SessionStore

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp) / "home", Path(tmp) / "project"
        (home / ".config").mkdir(parents=True)
        workspace.mkdir()
        env = environment(home)
        launch_times(2, env, workspace)  # warm the file cache and .pyc files
        times = launch_times(runs, env, workspace)
        idle = idle_rss(env, workspace)
        session = make_session(env, workspace)
        big = idle_rss(env, workspace, ["--resume", session], settle=4.0)
    median = statistics.median(times)
    print(f"{'measure':<34}{'value':>10}{'target':>10}")
    print(f"{'launch → prompt ready, median ms':<34}{median:>10.0f}{'≤300':>10}")
    print(f"{'launch → prompt ready, min ms':<34}{min(times):>10.0f}")
    print(f"{'idle RSS after start, MB':<34}{idle:>10.1f}{'≤100':>10}")
    print(f"{'RSS, 500-message session, MB':<34}{big:>10.1f}{'≤200':>10}")
    print(f"(runs: {runs}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
