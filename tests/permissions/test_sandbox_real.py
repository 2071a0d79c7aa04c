"""The sandbox for real: a write outside the workspace and a connection to a loopback
server fail inside it and succeed outside it. Skipped, with the reason, where a backend
cannot run."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from aiagent.infra import sandbox
from aiagent.infra.config.model import SandboxSettings

PROBE = """
import socket, sys
target, port = sys.argv[1], int(sys.argv[2])
results = []
try:
    open(target, "w").write("x"); results.append("write-outside:ok")
except OSError as e:
    results.append("write-outside:" + type(e).__name__)
open("inside.txt", "w").write("x"); results.append("write-inside:ok")
try:
    socket.create_connection(("127.0.0.1", port), timeout=2).close(); results.append("net:ok")
except OSError as e:
    results.append("net:" + type(e).__name__)
print(" ".join(results))
"""


@pytest.fixture
def server() -> Iterator[int]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                listener.accept()[0].close()
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(2)
    listener.close()


def _backend(name: str) -> sandbox.SandboxInfo:
    sandbox.detect.cache_clear()
    info = sandbox.detect(name)
    if not info.available:
        pytest.skip(f"needs the {name} sandbox: {info.detail}")
    return info


def _run(argv: list[str], cwd: Path) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("backend", ["bubblewrap", "landlock"])
def test_writes_and_network_are_confined(backend: str, tmp_path: Path, server: int) -> None:
    _backend(backend)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    outside = Path.home() / f".aiagent-sandbox-test-{backend}-{server}"
    command = [sys.executable, "-c", PROBE, str(outside), str(server)]
    try:
        inside = _run(sandbox.sandbox_argv(command, workspace, backend=backend), workspace)
        assert not outside.exists()
        plain = _run(command, workspace)
    finally:
        outside.unlink(missing_ok=True)
    assert inside.startswith("write-outside:") and "write-outside:ok" not in inside
    assert "write-inside:ok" in inside and "net:ok" not in inside
    assert plain == "write-outside:ok write-inside:ok net:ok"
    allowed = _run(sandbox.sandbox_argv(command, workspace, True, backend=backend), workspace)
    outside.unlink(missing_ok=True)
    assert "net:ok" in allowed and "write-outside:ok" not in allowed


def test_temp_is_writable_inside(tmp_path: Path) -> None:
    _backend("bubblewrap")
    argv = sandbox.sandbox_argv(["sh", "-c", "echo hi > /tmp/aiagent-sbx-$$ && rm /tmp/aiagent-sbx-$$ && echo ok"],
                                tmp_path, backend="bubblewrap")
    assert _run(argv, tmp_path) == "ok"


def test_settings_wrapping_and_detection_messages(tmp_path: Path) -> None:
    assert sandbox.wrap_for_settings(["ls"], tmp_path, {}) == ["ls"]
    assert sandbox.wrap_for_settings(["ls"], tmp_path, {"sandbox": {"enabled": False}}) == ["ls"]
    off = sandbox.detect("none")
    assert not off.available and "disabled" in off.detail
    assert "unknown sandbox backend" in sandbox.detect("chroot").detail
    assert sandbox.tool_settings(SandboxSettings(backend="none"), "full-auto")["enabled"] is False
    assert sandbox.tool_settings(SandboxSettings(), "prompt")["enabled"] is False
    assert sandbox.state(SandboxSettings(backend="none")) == "off"
    with pytest.raises(sandbox.SandboxUnavailable):
        sandbox.sandbox_argv(["ls"], tmp_path, backend="none")


def test_sandbox_check_cli(run_cli, tmp_path: Path) -> None:
    proc = run_cli("sandbox", "check")
    sandbox.detect.cache_clear()
    if sandbox.detect().available:
        assert proc.returncode == 0 and proc.stdout.startswith("sandbox: ")
    else:
        assert proc.returncode == 1 and "sandbox: none" in proc.stdout
    none = run_cli("sandbox", "check", "--backend", "none")
    assert none.returncode == 1 and "will ask before running" in none.stdout
