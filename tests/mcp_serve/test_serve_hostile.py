"""A hostile or careless client: huge arguments, unknown tools, paths out of the folder,
garbage on stdin, cancelled calls, a client gone mid-task, calls after close. The server
answers with MCP errors, leaves no process behind and never prints a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from servekit import serving

from aiagent.testing import FakeLLM, Turn

WORKER = "aiagent.frontends.mcp_server.worker"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _workers() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "environ"]):
        with_us = proc.info.get("cmdline") or []
        if WORKER in " ".join(with_us):
            found.append(proc)
    return found


def _mine(marker: str) -> list[psutil.Process]:
    """The worker processes whose environment carries ``marker`` (this test's HOME)."""
    mine = []
    for proc in _workers():
        with contextlib.suppress(psutil.Error):
            if (proc.environ() or {}).get("HOME") == marker:
                mine.append(proc)
    return mine


def _no_workers_from(marker: str, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _mine(marker):
            return True
        time.sleep(0.1)
    return False


def test_paths_out_of_the_folder_are_refused(env: dict[str, str], project: Path,
                                             tmp_path: Path) -> None:
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "x.log").write_text("2024-01-01 ERROR secret\n")
    (project / "link").symlink_to(outside)
    (project / "link.log").symlink_to(outside / "x.log")
    calls = [("security_audit", {"path": "../"}), ("security_audit", {"path": str(outside)}),
             ("security_audit", {"path": "link"}), ("analyze_log", {"path": "link.log"}),
             ("analyze_log", {"path": "/etc/passwd"}), ("build_wiki", {"out_dir": "../out"}),
             ("build_wiki", {"out_dir": "link/wiki"}), ("review_diff", {"path": "link"})]

    async def go() -> list[Any]:
        async with serving(project, env, tmp_path / "err") as session:
            return [await session.call_tool(name, args) for name, args in calls]

    results = run(go())
    for (name, args), result in zip(calls, results, strict=True):
        assert result.is_error, (name, args)
        assert "outside the server's folder" in _text(result), (name, args, _text(result))
    assert not (tmp_path / "out").exists() and not (outside / "wiki").exists()
    assert "Traceback" not in (tmp_path / "err").read_text()


def test_huge_and_bad_arguments_get_clean_errors(env: dict[str, str], project: Path,
                                                 tmp_path: Path) -> None:
    async def go() -> tuple[Any, ...]:
        async with serving(project, env, tmp_path / "err") as session:
            unknown = await session.call_tool("no_such_tool", {})
            long_prompt = await session.call_tool("run_task", {"prompt": "x" * 300_000})
            wrong_type = await session.call_tool("security_audit", {"max_findings": "many"})
            both = await session.call_tool("analyze_log", {"text": "a", "path": "app.log"})
            try:
                await session.call_tool("analyze_log", {"text": "y" * (9 * 1024 * 1024)})
                huge: Any = None
            except Exception as exc:  # the SDK raises the JSON-RPC error it was answered
                huge = exc
            after = await session.call_tool("analyze_log", {"path": "app.log"})
        return unknown, long_prompt, wrong_type, both, huge, after

    unknown, long_prompt, wrong_type, both, huge, after = run(go())
    assert unknown.is_error and "no_such_tool" in _text(unknown)
    assert long_prompt.is_error and wrong_type.is_error and both.is_error
    assert huge is not None and "limit" in str(huge)
    assert not after.is_error  # the server is still serving
    err = (tmp_path / "err").read_text()
    assert "Traceback" not in err and "refused" in err


def _raw_server(folder: Path, env: dict[str, str], errlog: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "aiagent", "mcp", "serve"], cwd=folder, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}


def _send(proc: subprocess.Popen[bytes], message: Any) -> None:
    assert proc.stdin is not None
    data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
    proc.stdin.write(data)
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    return json.loads(proc.stdout.readline())  # type: ignore[no-any-return]


def test_malformed_json_rpc_is_answered_and_the_server_keeps_going(env: dict[str, str], project: Path,
                                                                   tmp_path: Path) -> None:
    with (tmp_path / "err").open("w+") as err:
        proc = _raw_server(project, env, err)
        try:
            _send(proc, b"this is not json\n")
            first = _answer(proc)
            _send(proc, b'{"jsonrpc": "2.0", "id": 7, "method": 12}\n')
            second = _answer(proc)
            _send(proc, b"[1, 2\n")
            third = _answer(proc)
            _send(proc, INIT)
            init = _answer(proc)
        finally:
            assert proc.stdin is not None
            proc.stdin.close()
            code = proc.wait(timeout=20)
    assert first["error"]["code"] == -32700 and first["id"] is None
    assert second["error"]["code"] == -32600 and second["id"] == 7
    assert third["error"]["code"] == -32700
    assert init["id"] == 1 and init["result"]["serverInfo"]["name"] == "aiagent"
    assert init["result"]["capabilities"].keys() >= {"tools"}
    assert not init["result"]["capabilities"].keys() & {"resources", "prompts"}  # tools only
    assert code == 0
    assert "Traceback" not in (tmp_path / "err").read_text()


def _slow_task(fake: FakeLLM, env: dict[str, str]) -> dict[str, str]:
    return {**env, "OPENAI_BASE_URL": fake.url + "/v1", "AIAGENT_PROVIDER": "openai",
            "AIAGENT_MODEL": "fake"}


SLOW = [Turn(text="slow " * 100, chunk_delay=0.3, text_chunks=100)]


def test_a_cancelled_call_leaves_no_worker(env: dict[str, str], project: Path, tmp_path: Path) -> None:
    async def go(fake: FakeLLM) -> tuple[Any, bool]:
        async with serving(project, _slow_task(fake, env), tmp_path / "err") as session:
            call = asyncio.ensure_future(session.call_tool("run_task", {"prompt": "go slowly"}))
            while not fake.requests:  # the worker is running and asked the model
                await asyncio.sleep(0.1)
            assert _mine(env["HOME"]), "no worker to cancel"
            call.cancel()  # the SDK client sends notifications/cancelled
            with pytest.raises(asyncio.CancelledError):
                await call
            gone = await asyncio.to_thread(_no_workers_from, env["HOME"])
            after = await session.call_tool("analyze_log", {"path": "app.log"})
        return after, gone

    with FakeLLM(SLOW) as fake:
        after, gone = run(go(fake))
    assert gone, "the cancelled call's worker is still running"
    assert not after.is_error
    assert "Traceback" not in (tmp_path / "err").read_text()


def test_a_client_gone_mid_task_leaves_nothing(env: dict[str, str], project: Path,
                                               tmp_path: Path) -> None:
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "run_task", "arguments": {"prompt": "go slowly"}}}
    with FakeLLM(SLOW) as fake, (tmp_path / "err").open("w+") as err:
        proc = _raw_server(project, _slow_task(fake, env), err)
        _send(proc, INIT)
        _answer(proc)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, call)
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.1)
        assert fake.requests, "the task never reached the model"
        assert _mine(env["HOME"])
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()  # the client is gone: its end of both pipes
        code = proc.wait(timeout=20)
    assert code == 0
    assert _no_workers_from(env["HOME"])
    assert "Traceback" not in (tmp_path / "err").read_text()


def test_calls_after_the_session_closed(env: dict[str, str], project: Path, tmp_path: Path) -> None:
    async def go() -> Any:
        async with serving(project, env, tmp_path / "err") as session:
            await session.list_tools()
        try:
            await asyncio.wait_for(session.call_tool("analyze_log", {"path": "app.log"}), 10)
        except Exception as exc:  # closed: the client says so, nothing hangs
            return exc
        return None

    error = run(go())
    assert error is not None
    assert "Traceback" not in (tmp_path / "err").read_text()
    assert _no_workers_from(env["HOME"], timeout=2)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX only")
def test_stdout_carries_only_protocol_messages(env: dict[str, str], project: Path,
                                               tmp_path: Path) -> None:
    with (tmp_path / "err").open("w+") as err:
        proc = _raw_server(project, env, err)
        _send(proc, INIT)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "analyze_log", "arguments": {"path": "app.log"}}})
        assert proc.stdin is not None and proc.stdout is not None
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        proc.stdin.close()
        rest = proc.stdout.read()
        proc.wait(timeout=20)
    for line in [*lines, *rest.splitlines()]:
        if line.strip():
            assert json.loads(line)["jsonrpc"] == "2.0"


def _start_slow_call(proc: subprocess.Popen[bytes], fake: FakeLLM) -> None:
    _send(proc, INIT)
    _answer(proc)
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "run_task", "arguments": {"prompt": "go slowly"}}})
    deadline = time.monotonic() + 30
    while not fake.requests and time.monotonic() < deadline:
        time.sleep(0.1)


def test_sigterm_mid_task_ends_the_server_and_its_worker(env: dict[str, str], project: Path,
                                                         tmp_path: Path) -> None:
    import signal

    with FakeLLM(SLOW) as fake, (tmp_path / "err").open("w+") as err:
        proc = _raw_server(project, _slow_task(fake, env), err)
        _start_slow_call(proc, fake)
        assert _mine(env["HOME"]), "no worker running"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
    assert code == 0
    assert _no_workers_from(env["HOME"])
    assert "Traceback" not in (tmp_path / "err").read_text()


def test_a_call_over_the_time_limit_is_stopped(env: dict[str, str], project: Path,
                                               tmp_path: Path) -> None:
    async def go(fake: FakeLLM) -> Any:
        async with serving(project, _slow_task(fake, env), tmp_path / "err",
                           "--call-timeout", "3") as session:
            return await asyncio.wait_for(session.call_tool("run_task", {"prompt": "go slowly"}), 30)

    with FakeLLM(SLOW) as fake:
        result = run(go(fake))
    assert result.is_error and "stopped after 3 s" in _text(result)
    assert _no_workers_from(env["HOME"])
