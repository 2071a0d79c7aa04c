"""The one process runner: every command the agent starts goes through here.

Used by the shell tools, background jobs, ``exec_command`` sessions, the TUI's ``!cmd``
and skills' commands.

* On Linux each command is started under a supervisor of the reaper
  (:mod:`aiagent.infra.process.reaper`): a subreaper, so every descendant stays in its tree
  whatever it does (``setsid``, ``env -i``, double fork), and it dies with the agent
  even after a ``kill -9``. Elsewhere (or if the reaper cannot start) the child is
  spawned directly in its own session and found again by its process group, its
  descendants and the tag in its environment (:mod:`aiagent.infra.process.tree`).
* Output is read incrementally from pipes (or a PTY) into a bounded :class:`Capture`
  (head + tail in memory) and handed to ``on_output`` as it arrives.
* Completion is the child's exit, not end-of-file on the pipes: after the exit the pipes
  get a short drain, and whatever the command left running is killed.
* :meth:`Running.supervise` enforces a hard timeout and an inactivity timeout (output
  activity extends the latter, never past the former), honours cancellation and can hand
  the process over to the background after a wait.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import fcntl
import os
import subprocess
import termios
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from aiagent.infra.process.capture import Capture
from aiagent.infra.process.supervised import (
    ReaperUnavailable,
    SupervisedProcess,
    available,
    spawn_supervised,
)
from aiagent.infra.process.tree import TAG_VARIABLE, find_tagged, kill_tree

OutputSink = Callable[[str, str], None]  # (stream name, text)
DataSink = Callable[[str, bytes], None]  # (stream name, raw bytes)
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


class DirectProcess:
    """A child started with :class:`subprocess.Popen` (no reaper: other systems, or the
    reaper could not start, or a kept job that may outlive the agent).

    No asyncio subprocess transport is involved, so nothing is left to be finalised after
    the event loop closed (the source of "Event loop is closed" tracebacks at exit)."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()


DetachedProcess = DirectProcess  # the old name


@dataclass
class Running:
    """A spawned command and the tasks reading its output."""

    proc: DirectProcess | SupervisedProcess
    tag: str
    capture: Capture
    argv: list[str]
    started: float = field(default_factory=time.monotonic)
    last_activity: float = field(default_factory=time.monotonic)
    on_output: OutputSink | None = None
    readers: list[asyncio.Task[None]] = field(default_factory=list)
    pty_fd: int | None = None
    exit_code: int | None = None
    self_logging: bool = False  # the child writes its log file itself
    kept: bool = False  # left running on purpose: cancelling the watcher must not kill it
    on_data: DataSink | None = None  # raw bytes per stream (protocols, exact output)
    stdin: asyncio.StreamWriter | None = None  # with ``stdin_pipe``: the child's stdin

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def supervised(self) -> bool:
        return isinstance(self.proc, SupervisedProcess)

    @property
    def done(self) -> bool:
        return self.proc.returncode is not None

    @property
    def detached(self) -> bool:
        """A job writing its own log without a supervisor: it can outlive the agent."""
        return self.self_logging and isinstance(self.proc, DirectProcess)

    def refresh(self) -> None:
        """For children writing their own log: account for what they wrote."""
        if self.self_logging:
            self.capture.sync_from_log()

    def _got(self, name: str, data: bytes, decoder: codecs.IncrementalDecoder) -> None:
        self.last_activity = time.monotonic()
        self.capture.add(data)
        if self.on_data is not None:
            self.on_data(name, data)
        sink = self.on_output
        if sink is not None:
            text = decoder.decode(data)
            if text:
                sink(name, text)

    async def _pump_fd(self, fd: int, name: str = "stdout", close: bool = False) -> None:
        """Read a non-blocking descriptor (a pipe, or a PTY master) until end-of-file."""
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
                self._got(name, data, decoder)
        finally:
            loop.remove_reader(fd)
            if close:
                os.close(fd)

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
            if not self.kept:
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
        if isinstance(self.proc, SupervisedProcess):
            leftovers = await self._supervisor_done(limits.kill_grace + 5.0)
            drained = await self.wait_readers(limits.drain)
        else:
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
        if self.stdin is not None:
            self.stdin.close()
            self.stdin = None
        if self.pty_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.pty_fd)
            self.pty_fd = None

    async def _supervisor_done(self, timeout: float) -> int:
        """Wait for the supervisor's ``done`` (it kills what the command left running)."""
        proc = self.proc
        assert isinstance(proc, SupervisedProcess)
        deadline = time.monotonic() + timeout
        while not proc.cleaned and time.monotonic() < deadline:
            proc.poll()
            await asyncio.sleep(0.005)
        return proc.leftovers

    async def kill(self, grace: float = 1.0) -> None:
        """Kill the whole tree of this command (safe after the root was reaped)."""
        if isinstance(self.proc, SupervisedProcess):
            self.proc.terminate()
            await self._supervisor_done(grace + 3.0)
            if self.proc.cleaned:
                return
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
    merge_stderr: bool = False,
    grace: float = 1.0,
    on_data: DataSink | None = None,
    stdin_pipe: bool = False,
) -> Running:
    """Start ``argv`` in a new session; ``env`` must carry the tag variable.

    ``grace`` is the supervisor's time between SIGTERM and SIGKILL when it ends the tree;
    ``merge_stderr`` sends stderr into the stdout pipe (as a terminal would show them);
    ``on_data`` gets the raw bytes of each stream; ``stdin_pipe`` opens the child's stdin
    as a pipe, written through :attr:`Running.stdin` (else it reads ``/dev/null``)."""
    stdin_r, stdin_w = os.pipe() if stdin_pipe and not tty else (None, None)
    try:
        running = None
        if available():
            with contextlib.suppress(ReaperUnavailable):
                running = _spawn_supervised(argv, cwd, env, capture, on_output, tty, merge_stderr,
                                            grace, stdin_r)
        if running is None:
            running = _spawn_direct(argv, cwd, env, capture, on_output, tty, merge_stderr, stdin_r)
    except BaseException:
        if stdin_w is not None:
            os.close(stdin_w)
        raise
    finally:
        if stdin_r is not None:
            os.close(stdin_r)
    running.on_data = on_data
    if stdin_w is not None:
        running.stdin = await _writer(stdin_w)
    return running


async def _writer(fd: int) -> asyncio.StreamWriter:
    """An asyncio writer (with ``drain``) over our end of the child's stdin pipe."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(fd, "wb", buffering=0))
    return asyncio.StreamWriter(transport, protocol, None, loop)


def _child_stdio(tty: bool, merge_stderr: bool,
                 stdin: int | None = None) -> tuple[tuple[int, int, int], list[int]]:
    """The child's (stdin, stdout, stderr) and our reading ends (PTY master, or pipes);
    ``stdin`` is a descriptor to give the child (a copy is made), else ``/dev/null``."""
    if tty:
        master, slave = os.openpty()
        return (slave, slave, slave), [master]
    null = os.dup(stdin) if stdin is not None else os.open(os.devnull, os.O_RDONLY)
    out_r, out_w = os.pipe()
    if merge_stderr:
        return (null, out_w, out_w), [out_r]
    err_r, err_w = os.pipe()
    return (null, out_w, err_w), [out_r, err_r]


def _spawn_supervised(
    argv: list[str], cwd: Path, env: dict[str, str], capture: Capture,
    on_output: OutputSink | None, tty: bool, merge_stderr: bool, grace: float,
    stdin: int | None = None,
) -> Running:
    child, ours = _child_stdio(tty, merge_stderr, stdin)
    with _handing_over(child, ours):
        proc = spawn_supervised(argv, cwd=cwd, env=env, stdio=child, tty=tty, grace=grace)
    return _reading(Running(proc=proc, tag=env[TAG_VARIABLE], capture=capture, argv=argv,
                            on_output=on_output), ours, tty)


@contextlib.contextmanager
def _handing_over(child: tuple[int, ...], ours: list[int]) -> Iterator[None]:
    """Around starting a child: its ends of the pipes are closed here whatever happens (it
    has its own copies), ours only when the start fails (else the readers own them)."""
    try:
        yield
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in set(child):
            os.close(fd)


def _reading(running: Running, ours: list[int], tty: bool) -> Running:
    """Start the tasks that read the child's output from our ends of its descriptors."""
    for fd in ours:
        os.set_blocking(fd, False)
    if tty:
        running.pty_fd = ours[0]
        running.readers = [asyncio.ensure_future(running._pump_fd(ours[0]))]
    else:
        running.readers = [asyncio.ensure_future(running._pump_fd(fd, name, close=True))
                           for fd, name in zip(ours, ("stdout", "stderr"), strict=False)]
    return running


def spawn_detached(
    argv: list[str], *, cwd: Path, env: dict[str, str], capture: Capture,
    supervised: bool = True, grace: float = 1.0,
) -> Running:
    """Start ``argv`` in a new session with its output going straight to the log file.

    With ``supervised`` (and the reaper available) the job dies with the agent like any
    command; without, it can outlive the agent (``[tools.shell] keep_jobs``)."""
    assert capture.log_path is not None
    tag = env[TAG_VARIABLE]
    if supervised and available():
        with contextlib.suppress(ReaperUnavailable):
            log = os.open(capture.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            null = os.open(os.devnull, os.O_RDONLY)
            try:
                proc = spawn_supervised(argv, cwd=cwd, env=env, stdio=(null, log, log), grace=grace)
            finally:
                os.close(log)
                os.close(null)
            return Running(proc=proc, tag=tag, capture=capture, argv=argv, self_logging=True)
    with capture.log_path.open("ab") as handle:
        popen = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=handle, stderr=handle,
            start_new_session=True,
        )
    return Running(proc=DirectProcess(popen), tag=tag, capture=capture, argv=argv, self_logging=True)


def _spawn_direct(
    argv: list[str], cwd: Path, env: dict[str, str], capture: Capture,
    on_output: OutputSink | None, tty: bool, merge_stderr: bool, stdin: int | None = None,
) -> Running:
    child, ours = _child_stdio(tty, merge_stderr, stdin)

    def make_controlling_tty() -> None:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    with _handing_over(child, ours):
        popen = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=child[0], stdout=child[1], stderr=child[2],
            start_new_session=True, preexec_fn=make_controlling_tty if tty else None,
        )
    return _reading(Running(proc=DirectProcess(popen), tag=env[TAG_VARIABLE], capture=capture,
                            argv=argv, on_output=on_output), ours, tty)
