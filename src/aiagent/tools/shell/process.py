"""Spawning and supervising commands so that a tool call never hangs.

* Each command runs in its own session and process group, with stdin from ``/dev/null``
  (or a PTY for interactive sessions) and the non-interactive environment of
  :mod:`aiagent.tools.shell.env`; every process of the command carries a unique tag.
* Output is read incrementally from pipes (or the PTY) into a bounded :class:`Capture`
  and handed to ``on_output`` as it arrives.
* Completion is the child's exit, not end-of-file on the pipes: after the exit the pipes
  get a short drain, and whatever the command left running is killed.
* :meth:`Running.supervise` enforces a hard timeout and an inactivity timeout (output
  activity extends the latter, never past the former), honours cancellation and can hand
  the process over to the background after a wait.
* :func:`kill_tree` kills the whole tree: SIGTERM to the group and every known
  descendant, a grace period, SIGKILL, then any process still carrying the tag (those
  that double-forked or left the group).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import termios
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aiagent.tools.shell.capture import Capture
from aiagent.tools.shell.env import TAG_VARIABLE

OutputSink = Callable[[str, str], None]  # (stream name, text)
READ_SIZE = 65536


@dataclass(slots=True)
class Limits:
    timeout: float | None = None  # hard cap in seconds
    inactivity: float | None = None  # seconds without output
    background_after: float | None = None  # seconds before handing over to a job
    kill_grace: float = 1.0
    drain: float = 0.25  # seconds to wait for the pipes after the child exited


@dataclass(slots=True)
class Outcome:
    exit_code: int | None
    duration: float
    timed_out: bool = False
    reason: str | None = None  # timeout | inactivity_timeout | canceled | backgrounded
    leftovers: int = 0  # processes the command left running (killed)

    @property
    def canceled(self) -> bool:
        return self.reason == "canceled"


class DetachedProcess:
    """A child started with :class:`subprocess.Popen` writing straight to its log file.

    Such a child does not depend on our pipes or event loop, so it can outlive the agent
    (background jobs the user keeps).
    """

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()


@dataclass
class Running:
    """A spawned command and the tasks reading its output."""

    proc: asyncio.subprocess.Process | DetachedProcess
    tag: str
    capture: Capture
    argv: list[str]
    started: float = field(default_factory=time.monotonic)
    last_activity: float = field(default_factory=time.monotonic)
    on_output: OutputSink | None = None
    readers: list[asyncio.Task[None]] = field(default_factory=list)
    pty_fd: int | None = None
    exit_code: int | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def done(self) -> bool:
        return self.proc.returncode is not None

    @property
    def detached(self) -> bool:
        return isinstance(self.proc, DetachedProcess)

    def refresh(self) -> None:
        """For detached children: account for what they wrote to the log file."""
        if self.detached:
            self.capture.sync_from_log()

    def _got(self, name: str, data: bytes, decoder: codecs.IncrementalDecoder) -> None:
        self.last_activity = time.monotonic()
        self.capture.add(data)
        sink = self.on_output
        if sink is not None:
            text = decoder.decode(data)
            if text:
                sink(name, text)

    async def _pump_stream(self, reader: asyncio.StreamReader, name: str) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while data := await reader.read(READ_SIZE):
            self._got(name, data, decoder)

    async def _pump_pty(self, fd: int) -> None:
        loop = asyncio.get_running_loop()
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        ready = asyncio.Event()
        loop.add_reader(fd, ready.set)
        try:
            while True:
                await ready.wait()
                ready.clear()
                try:
                    data = os.read(fd, READ_SIZE)
                except BlockingIOError:
                    continue
                except OSError:  # EIO: the child side closed
                    break
                if not data:
                    break
                self._got("stdout", data, decoder)
        finally:
            loop.remove_reader(fd)

    def write(self, data: bytes) -> None:
        if self.pty_fd is None:
            raise OSError("stdin is not open for this process")
        os.write(self.pty_fd, data)

    async def wait_readers(self, timeout: float) -> bool:
        pending = [t for t in self.readers if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)
        return all(t.done() for t in self.readers)

    async def supervise(self, limits: Limits, cancel: asyncio.Event | None = None) -> Outcome:
        """Wait for the exit, a limit or cancellation; then clean up (unless backgrounded).

        If the awaiting task itself is cancelled (Esc, Ctrl-C, the run's timeout), the
        whole tree is killed before the cancellation goes on."""
        try:
            reason = await self._watch(limits, cancel)
        except asyncio.CancelledError:
            await asyncio.shield(self.kill(limits.kill_grace))
            raise
        if reason == "backgrounded":
            return Outcome(None, time.monotonic() - self.started, reason=reason)
        if reason is not None:
            await self.kill(limits.kill_grace)
        await self.wait_exit(limits.kill_grace + 5.0)
        leftovers = await self.finish(limits)
        return Outcome(
            exit_code=self.exit_status(),
            duration=time.monotonic() - self.started,
            timed_out=reason in ("timeout", "inactivity_timeout"),
            reason=reason,
            leftovers=leftovers,
        )

    async def _watch(self, limits: Limits, cancel: asyncio.Event | None) -> str | None:
        # ``proc.wait()`` would also wait for the pipes to close, which a background
        # grandchild can keep open forever; the exit status alone decides completion.
        step = 0.01
        while True:
            if self.proc.returncode is not None:
                return None
            if cancel is not None and cancel.is_set():
                return "canceled"
            reason = self._limit_hit(limits)
            if reason:
                return reason
            wake = self._next_deadline(limits) - time.monotonic()
            await asyncio.sleep(max(0.0, min(wake, step)))
            step = min(step * 1.5, 0.05)

    async def wait_exit(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.proc.returncode is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return self.proc.returncode is not None

    def _next_deadline(self, limits: Limits) -> float:
        marks = [time.monotonic() + 0.5]
        if limits.timeout is not None:
            marks.append(self.started + limits.timeout)
        if limits.inactivity is not None:
            marks.append(self.last_activity + limits.inactivity)
        if limits.background_after is not None:
            marks.append(self.started + limits.background_after)
        return min(marks)

    def _limit_hit(self, limits: Limits) -> str | None:
        self.refresh()
        now = time.monotonic()
        if limits.timeout is not None and now >= self.started + limits.timeout:
            return "timeout"
        if limits.inactivity is not None and now >= self.last_activity + limits.inactivity:
            return "inactivity_timeout"
        if limits.background_after is not None and now >= self.started + limits.background_after:
            return "backgrounded"
        return None

    async def finish(self, limits: Limits) -> int:
        """After the exit: drain the pipes briefly, kill leftovers, stop the readers."""
        drained = await self.wait_readers(limits.drain)
        leftovers = len(find_tagged(self.tag))
        if leftovers or not drained:
            await self.kill(limits.kill_grace)
        if not await self.wait_readers(2.0):
            for task in self.readers:
                task.cancel()
        self._close_pty()
        self.refresh()
        self.capture.close()
        return leftovers

    def _close_pty(self) -> None:
        if self.pty_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.pty_fd)
            self.pty_fd = None

    async def kill(self, grace: float = 1.0) -> None:
        """Kill the whole tree of this command (safe after the root was reaped)."""
        await kill_tree(self.pid if self.proc.returncode is None else None, self.tag, grace)

    def exit_status(self) -> int | None:
        code = self.proc.returncode
        if code is not None and code < 0:
            return 128 - code  # killed by a signal: the shell's 128 + N
        return code


def new_tag() -> str:
    return uuid.uuid4().hex


async def spawn(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    capture: Capture,
    on_output: OutputSink | None = None,
    tty: bool = False,
) -> Running:
    """Start ``argv`` in a new session; ``env`` must carry the tag variable."""
    if tty:
        return await _spawn_pty(argv, cwd, env, capture, on_output)
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    running = Running(proc=proc, tag=env[TAG_VARIABLE], capture=capture, argv=argv, on_output=on_output)
    assert proc.stdout is not None and proc.stderr is not None
    running.readers = [
        asyncio.ensure_future(running._pump_stream(proc.stdout, "stdout")),
        asyncio.ensure_future(running._pump_stream(proc.stderr, "stderr")),
    ]
    return running


def spawn_detached(argv: list[str], *, cwd: Path, env: dict[str, str], capture: Capture) -> Running:
    """Start ``argv`` in a new session with its output going straight to the log file."""
    assert capture.log_path is not None
    with capture.log_path.open("ab") as log:
        popen = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            start_new_session=True,
        )
    return Running(proc=DetachedProcess(popen), tag=env[TAG_VARIABLE], capture=capture, argv=argv)


async def _spawn_pty(
    argv: list[str], cwd: Path, env: dict[str, str], capture: Capture, on_output: OutputSink | None
) -> Running:
    master, slave = os.openpty()
    os.set_blocking(master, False)

    def make_controlling_tty() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
            preexec_fn=make_controlling_tty,
        )
    finally:
        os.close(slave)
    running = Running(proc=proc, tag=env[TAG_VARIABLE], capture=capture, argv=argv, on_output=on_output)
    running.pty_fd = master
    running.readers = [asyncio.ensure_future(running._pump_pty(master))]
    return running


# -- killing -----------------------------------------------------------------------------


def find_tagged(tag: str) -> list[int]:
    """PIDs of live processes whose environment carries ``tag`` (ours only)."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    if sys.platform.startswith("linux"):
        return _find_tagged_proc(needle)
    return _find_tagged_psutil(tag)


def _find_tagged_proc(needle: bytes) -> list[int]:
    me = os.getpid()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if needle in handle.read():
                    found.append(int(name))
        except OSError:
            continue
    return [pid for pid in found if not _is_zombie(pid)]


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True


def _find_tagged_psutil(tag: str) -> list[int]:
    import psutil

    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if proc.pid != os.getpid() and proc.environ().get(TAG_VARIABLE) == tag:
                found.append(proc.pid)
    return found


def _descendants(pid: int) -> list[int]:
    import psutil

    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _signal_all(pgid: int | None, pids: set[int], sig: int) -> None:
    if pgid is not None:
        with contextlib.suppress(OSError):
            os.killpg(pgid, sig)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _alive(pids: set[int]) -> set[int]:
    import psutil

    alive = set()
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
    return alive


async def kill_tree(pid: int | None, tag: str, grace: float = 1.0) -> None:
    """TERM the group and every descendant, wait ``grace``, KILL, then KILL stragglers.

    ``pid`` is the root (also the process group id) while it has not been reaped; pass
    None once it has, so that a recycled PID is never signalled. Tagged processes are
    found by their environment, which also catches daemons that left the group.
    """
    targets = set(find_tagged(tag))
    if pid is not None:
        targets |= {pid, *_descendants(pid)}
    _signal_all(pid, targets, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        targets |= set(find_tagged(tag))
        if not _alive(targets):
            break
        await asyncio.sleep(0.05)
    for _round in range(3):
        targets = _alive(targets) | set(find_tagged(tag))
        if not targets:
            return
        _signal_all(pid, targets, signal.SIGKILL)
        await asyncio.sleep(0.05)
