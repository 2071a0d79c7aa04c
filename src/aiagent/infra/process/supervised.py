"""The agent's side of the reaper: start it once, spawn commands through it.

:func:`spawn_supervised` hands argv, cwd, environment and the child's three descriptors to
the reaper (:mod:`aiagent.infra.process.reaper`) and returns a :class:`SupervisedProcess`, which
learns the command's PID, exit status and the number of processes it left behind from the
supervisor's status pipe. The reaper is started on first use (one per agent process) and
restarted if it died. Linux only; :func:`available` says whether it can be used.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

START_TIMEOUT = 10.0


class ReaperUnavailable(OSError):
    """The reaper could not be started or reached (the caller spawns directly)."""


class SupervisedProcess:
    """A command running under a supervisor; ``returncode`` is read from the status pipe."""

    def __init__(self, supervisor: int, status_fd: int) -> None:
        self.supervisor = supervisor
        self.pid = 0
        self.leftovers = 0
        self.cleaned = False  # the supervisor reported "done" (or vanished)
        self._code: int | None = None
        self._fd: int | None = status_fd
        self._buffer = b""

    @property
    def returncode(self) -> int | None:
        self.poll()
        return self._code

    def poll(self) -> None:
        while self._fd is not None:
            try:
                data = os.read(self._fd, 4096)
            except BlockingIOError:
                return
            if not data:
                self._closed()
                return
            self._buffer += data
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                self._line(line.decode())

    def _line(self, line: str) -> None:
        word, _, value = line.partition(" ")
        if word == "pid":
            self.pid = int(value)
        elif word == "exit":
            self._code = int(value)
        elif word == "done":
            self.leftovers = int(value)
            self.cleaned = True
        elif word == "error":
            code = int(value)
            self._closed()
            raise OSError(code, os.strerror(code))

    def _closed(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._code is None:  # the supervisor died without a word
            self._code = -signal.SIGKILL
        self.cleaned = True

    def wait_started(self, timeout: float = START_TIMEOUT) -> None:
        """Block until the supervisor said ``pid N`` (or raised the exec error)."""
        deadline = time.monotonic() + timeout
        while not self.pid and self._fd is not None and time.monotonic() < deadline:
            select.select([self._fd], [], [], max(0.0, deadline - time.monotonic()))
            self.poll()
        if not self.pid and not self.cleaned:
            self.terminate()
            raise ReaperUnavailable("the command's supervisor did not start")

    def terminate(self) -> None:
        """Ask the supervisor to end the command's whole tree (TERM, grace, KILL)."""
        if not self.cleaned:
            with contextlib.suppress(OSError):
                os.kill(self.supervisor, signal.SIGTERM)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class _Reaper:
    """One reaper process per agent process, reached over a SEQPACKET socket."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sock: socket.socket | None = None
        self.popen: subprocess.Popen[bytes] | None = None
        self.owner = 0  # the process that started it (a forked copy of us starts its own)

    def _start(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        script = Path(__file__).with_name("reaper.py")
        try:
            self.popen = subprocess.Popen(
                [sys.executable, "-I", "-S", str(script), str(theirs.fileno())],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True,
            )
        except OSError as err:
            ours.close()
            raise ReaperUnavailable(f"cannot start the reaper: {err}") from None
        finally:
            theirs.close()
        ours.settimeout(START_TIMEOUT)
        self.sock, self.owner = ours, os.getpid()
        return ours

    def _stop(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.popen is not None:
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                self.popen.wait(0)
            self.popen = None

    def request(self, payload: bytes, fds: list[int]) -> int:
        with self.lock:
            if self.sock is not None and self.owner != os.getpid():
                self.sock, self.popen = None, None  # inherited through fork: not ours to use
            for attempt in (1, 2):
                sock = self.sock or self._start()
                try:
                    socket.send_fds(sock, [payload], fds)
                    reply = json.loads(sock.recv(65536) or b"{}")
                except (OSError, ValueError) as err:
                    self._stop()
                    if attempt == 2:
                        raise ReaperUnavailable(f"the reaper did not answer: {err}") from None
                    continue
                if "pid" not in reply:
                    raise ReaperUnavailable(f"the reaper refused: {reply.get('error', reply)}")
                return int(reply["pid"])
        raise ReaperUnavailable("unreachable")


_REAPER = _Reaper()


def available() -> bool:
    return sys.platform.startswith("linux") and os.environ.get("AIAGENT_NO_REAPER", "") != "1"


def spawn_supervised(
    argv: list[str], *, cwd: Path, env: dict[str, str], stdio: tuple[int, int, int],
    tty: bool = False, grace: float = 1.0,
) -> SupervisedProcess:
    """Start ``argv`` under a supervisor; ``stdio`` are the child's stdin, stdout, stderr
    (the caller keeps and closes its own copies)."""
    payload = json.dumps({"argv": argv, "cwd": str(cwd), "env": env, "tty": tty, "grace": grace})
    status_r, status_w = os.pipe()
    try:
        supervisor = _REAPER.request(payload.encode(), [*stdio, status_w])
    except BaseException:
        os.close(status_r)
        raise
    finally:
        os.close(status_w)
    os.set_blocking(status_r, False)
    proc = SupervisedProcess(supervisor, status_r)
    proc.wait_started()
    return proc
