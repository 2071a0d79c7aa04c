"""Drive the real ``aiagent`` in a real terminal: a private tmux server per test.

``send`` presses keys (tmux key names: ``Enter``, ``Escape``, ``C-c``), ``type`` types
text literally, ``wait_for`` polls the screen and scrollback until a text shows up.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
EXIT_MARK = "__AIAGENT_EXIT="


PASS_THROUGH = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "VIRTUAL_ENV")


def ui_environment(home: Path) -> dict[str, str]:
    """The environment of the real ``aiagent`` with its own HOME and XDG folders under
    ``home`` (made here) and a terminal."""
    (home / ".config").mkdir(parents=True)
    env = {k: os.environ[k] for k in PASS_THROUGH if k in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local/share"), TERM="xterm-256color",
               SHELL="/bin/sh")
    return env


def llm_env(env: dict[str, str], fake: Any) -> dict[str, str]:
    """``env`` pointed at a FakeLLM (Anthropic wire format)."""
    return {**env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-000000"}


def available() -> bool:
    return shutil.which("tmux") is not None


class Tmux:
    def __init__(self) -> None:
        self.socket = f"aiagent-test-{uuid.uuid4().hex[:10]}"
        self.started = False

    def _tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-u", "-L", self.socket, *args], capture_output=True,
                              text=True, timeout=20)
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self, args: list[str], env: dict[str, str], cwd: Path, width: int = 80,
              height: int = 30, pipe: str = "", after: str = "") -> None:
        """Run ``aiagent ARGS`` (optionally ``| pipe``) in a fresh window; ``after`` is a
        shell command run once it has exited (its output follows the exit mark)."""
        assigns = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()))
        command = shlex.join([AIAGENT, *args]) + (f" | {pipe}" if pipe else "")
        then = f"{after}; " if after else ""
        script = (f"env -i {assigns} {command}; echo {EXIT_MARK}$?; {then}sleep 600")
        self._tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", str(width),
                   "-y", str(height), "-c", str(cwd), script)
        self._tmux("set-option", "-g", "history-limit", "5000")
        self.started = True

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "main", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "main", "-l", text)

    def screen(self, colours: bool = False) -> str:
        extra = ["-e"] if colours else []
        return self._tmux("capture-pane", "-p", "-t", "main", *extra)

    def everything(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main", "-S", "-5000")

    def wait_for(self, text: str, timeout: float = 15.0, after: int = 0) -> str:
        """Wait until ``text`` appears (counting only occurrences past the ``after``-th)."""
        deadline = time.monotonic() + timeout
        while True:
            seen = self.everything()
            if seen.count(text) > after:
                return seen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not appear in {timeout}s; screen:\n{seen}")
            time.sleep(0.1)

    def wait_idle(self, timeout: float = 15.0) -> str:
        """Wait until the input line is empty and waiting (no turn running)."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            lines = [ln.rstrip() for ln in screen.splitlines() if ln.strip()]
            if "›" in lines and lines[-1].startswith("⏎ send") and "esc to interrupt" not in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"the input line did not come back; screen:\n{screen}")
            time.sleep(0.1)

    def exit_code(self, timeout: float = 10.0) -> int:
        seen = self.wait_for(EXIT_MARK, timeout)
        tail = seen.split(EXIT_MARK, 1)[1]
        return int(tail.split()[0])

    def close(self) -> None:
        if self.started:
            self._tmux("kill-server", check=False)
