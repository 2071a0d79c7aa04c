"""The reaper: one small long-lived process per agent that every command is spawned under.

Run as ``python -I -S reaper.py FD`` (standard library only, so it starts in ~20 ms and
imports nothing of ours). ``FD`` is our end of a ``SOCK_SEQPACKET`` socket pair; the
agent holds the other end. Linux only (``prctl``).

* The reaper is a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): a process that
  double-forks, calls ``setsid`` or clears its environment (``env -i setsid sh -c … &``)
  is re-parented to the nearest subreaper above it instead of to init, so it stays in
  our tree and is found by its parent chain.
* Each request (JSON ``{argv, cwd, env, tty, grace}`` plus the child's stdin, stdout,
  stderr and a status pipe, passed with ``SCM_RIGHTS``) forks a *supervisor*: a further
  subreaper that forks and execs the command in a new session and watches it. The
  supervisor writes ``pid N`` (or ``error ERRNO``), then ``exit STATUS`` when the command
  ends, then kills every process still below it (SIGTERM, ``grace`` seconds, SIGKILL) and
  writes ``done COUNT``. SIGTERM to the supervisor ends the command's whole tree the same
  way (timeout, cancel, ``job_kill``).
* The agent's death, even by SIGKILL, closes its end of the socket: the reaper then
  terminates every supervisor, kills anything left below itself and exits. Supervisors
  also get SIGTERM when the reaper dies (``PR_SET_PDEATHSIG``).
* A process re-parented to the reaper itself (its supervisor was killed) is a stray and
  is killed at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
MAX_FDS = 4
MAX_MESSAGE = 1 << 20


class Terminate(Exception):
    """Raised by the SIGTERM handler: end the whole tree now."""


_LIBC: list[object] = []


def _prctl(option: int, value: int) -> None:
    import ctypes

    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    if _LIBC[0].prctl(option, value, 0, 0, 0) != 0:  # type: ignore[attr-defined]
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _on_term(signum: int, frame: object) -> None:
    raise Terminate()


# -- the process tree below us -----------------------------------------------------------


def _children(pid: int) -> list[int]:
    """Direct children of ``pid``, from every one of its threads (a child forked by a
    thread is listed under that thread)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as handle:
                found.extend(int(x) for x in handle.read().split())
        except OSError:
            continue
    return found


def _parent_map() -> dict[int, list[int]]:
    """Children of every process, from a full ``/proc`` scan (kernels without
    ``/proc/PID/task/TID/children``)."""
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                ppid = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(name))
    return tree


HAVE_CHILDREN_FILE = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def descendants() -> list[int]:
    """Every live process below this one (zombies excluded)."""
    tree = None if HAVE_CHILDREN_FILE else _parent_map()
    found: list[int] = []
    todo = _children(os.getpid()) if tree is None else list(tree.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(_children(pid) if tree is None else tree.get(pid, []))
    return [pid for pid in found if not _zombie(pid)]


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def _signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


# -- one command -------------------------------------------------------------------------


class Supervisor:
    """Runs in a process forked from the reaper; owns one command and everything below it."""

    def __init__(self, request: dict[str, object], fds: list[int]) -> None:
        self.request = request
        self.stdin, self.stdout, self.stderr, self.status = fds
        self.root = 0
        self.root_status: int | None = None
        self.grace = float(request.get("grace", 1.0))  # type: ignore[arg-type]

    def run(self) -> None:
        signal.signal(signal.SIGTERM, _on_term)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        try:
            self.root = self._start()
            self._say(f"pid {self.root}")
            self._wait_root()
        except Terminate:
            pass
        except OSError as err:
            self._say(f"error {err.errno or 0}")
            os._exit(0)
        self._finish()

    def _finish(self) -> None:
        while True:
            try:
                if self.root_status is None:
                    self._end_tree()
                    self._wait_root()
                self._say(f"exit {self._exit_code()}")
                self._say(f"done {self._end_tree()}")
                break
            except Terminate:
                continue
        os._exit(0)

    def _exit_code(self) -> int:
        status = self.root_status if self.root_status is not None else 0
        if os.WIFSIGNALED(status):
            return -os.WTERMSIG(status)
        return os.waitstatus_to_exitcode(status)

    def _say(self, line: str) -> None:
        with contextlib.suppress(OSError):
            os.write(self.status, (line + "\n").encode())

    def _start(self) -> int:
        err_r, err_w = os.pipe()  # close-on-exec: EOF means the exec worked
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the command's side, replaced by exec
            os.close(err_r)
            self._exec(err_w)
        os.close(err_w)
        for fd in (self.stdin, self.stdout, self.stderr):
            os.close(fd)
        data = b""
        while chunk := os.read(err_r, 64):
            data += chunk
        os.close(err_r)
        if data:
            os.waitpid(pid, 0)
            code = int(data)
            raise OSError(code, os.strerror(code))
        return pid

    def _exec(self, err_w: int) -> None:  # pragma: no cover - runs in the forked child
        try:
            for sig in (signal.SIGTERM, signal.SIGPIPE, signal.SIGINT, signal.SIGCHLD,
                        signal.SIGHUP, signal.SIGXFSZ):
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, set())
            os.setsid()
            for target, fd in enumerate((self.stdin, self.stdout, self.stderr)):
                os.dup2(fd, target)
            if self.request.get("tty"):
                import fcntl
                import termios

                fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            os.closerange(3, err_w)
            os.closerange(err_w + 1, 65536)
            os.chdir(str(self.request["cwd"]))
            argv = [str(a) for a in self.request["argv"]]  # type: ignore[attr-defined]
            env = {str(k): str(v) for k, v in self.request["env"].items()}  # type: ignore[attr-defined]
            os.execvpe(argv[0], argv, env)
        except OSError as err:
            os.write(err_w, str(err.errno or 1).encode())
        except BaseException:
            os.write(err_w, b"1")
        os._exit(127)

    def _wait_root(self) -> None:
        while self.root_status is None:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                self.root_status = 0
                return
            if pid == self.root:
                self.root_status = status

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.root:
                self.root_status = status

    def _end_tree(self) -> int:
        """TERM everything below us, wait ``grace``, then KILL until nothing is left."""
        self._reap()
        first = descendants()
        if not first:
            return 0
        _signal(first, signal.SIGTERM)
        _signal(first, signal.SIGCONT)
        deadline = time.monotonic() + self.grace
        while time.monotonic() < deadline:
            time.sleep(0.01)
            self._reap()
            if not descendants():
                return len(first)
        for _round in range(200):
            left = descendants()
            if not left:
                break
            _signal(left, signal.SIGKILL)
            time.sleep(0.005)
            self._reap()
        self._reap()
        return len(first)


# -- the reaper --------------------------------------------------------------------------


class Reaper:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.supervisors: set[int] = set()

    def serve(self) -> None:
        signal.signal(signal.SIGTERM, _on_term)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        try:
            while True:
                ready, _, _ = select.select([self.sock], [], [], 0.5)
                self._reap()
                if ready and not self._handle():
                    break
        except Terminate:
            pass
        self._shutdown()

    def _handle(self) -> bool:
        try:
            data, fds, _flags, _addr = socket.recv_fds(self.sock, MAX_MESSAGE, MAX_FDS)
        except OSError:
            return False
        if not data:
            return False  # the agent is gone
        reply: dict[str, object]
        try:
            reply = {"pid": self._fork(json.loads(data), fds)}
        except (OSError, ValueError) as err:
            reply = {"error": str(err)}
        for fd in fds:
            os.close(fd)
        self.sock.send(json.dumps(reply).encode())
        return True

    def _fork(self, request: dict[str, object], fds: list[int]) -> int:
        if len(fds) != MAX_FDS:
            raise ValueError(f"expected {MAX_FDS} descriptors, got {len(fds)}")
        pid = os.fork()
        if pid == 0:
            try:
                self.sock.close()
                Supervisor(request, fds).run()
            finally:
                os._exit(1)
        self.supervisors.add(pid)
        return pid

    def _reap(self) -> None:
        while True:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            self.supervisors.discard(pid)
        mine = _children(os.getpid()) if HAVE_CHILDREN_FILE else _parent_map().get(os.getpid(), [])
        strays = [pid for pid in mine if pid not in self.supervisors]
        if strays:  # re-parented to us: their supervisor died without cleaning up
            _signal(strays, signal.SIGKILL)

    def _shutdown(self) -> None:
        _signal(sorted(self.supervisors), signal.SIGTERM)
        deadline = time.monotonic() + 3.0
        while self.supervisors and time.monotonic() < deadline:
            time.sleep(0.01)
            self._reap()
        for _round in range(200):
            left = descendants()
            if not left:
                break
            _signal(left, signal.SIGKILL)
            time.sleep(0.005)
            self._reap()


def main(argv: list[str]) -> int:
    sock = socket.socket(fileno=int(argv[1]))
    Reaper(sock).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
