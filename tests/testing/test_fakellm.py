"""FakeLLM itself, seen from the wire with a plain HTTP client, and its script files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from aiagent.testing import FakeLLM, ScriptError, ToolCall, Turn, load_script

ENDPOINTS = {"anthropic": "/v1/messages", "openai": "/v1/chat/completions", "ollama": "/api/chat"}


def _ollama_text(response: httpx.Response) -> str:
    return "".join(json.loads(line)["message"]["content"] for line in response.text.splitlines())


def _post(fake: FakeLLM, path: str, body: object, **headers: str) -> httpx.Response:
    return httpx.post(fake.url + path, json=body, headers=headers, timeout=5)


def test_requests_are_recorded() -> None:
    with FakeLLM([Turn(text="hi")]) as fake:
        _post(fake, "/v1/messages", {"model": "m", "stream": True}, **{"x-api-key": "k"})
        [request] = fake.requests
    assert request["path"] == "/v1/messages"
    assert request["headers"]["x-api-key"] == "k"
    assert request["json"] == {"model": "m", "stream": True}


def test_anthropic_stream_shape() -> None:
    with FakeLLM([Turn(text="abc", tool_calls=[ToolCall("t", {"a": 1}, id="tu_1")])]) as fake:
        response = _post(fake, "/v1/messages", {"model": "m"})
    assert response.headers["content-type"] == "text/event-stream"
    events = [line.removeprefix("event: ") for line in response.text.splitlines() if line.startswith("event:")]
    assert events[0] == "message_start" and events[-2:] == ["message_delta", "message_stop"]
    data = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    partial = "".join(d["delta"].get("partial_json", "") for d in data if d["type"] == "content_block_delta")
    assert json.loads(partial) == {"a": 1}
    assert data[-2]["delta"]["stop_reason"] == "tool_use"


def test_openai_stream_shape_and_usage_only_when_asked() -> None:
    with FakeLLM([Turn(text="abc"), Turn(text="abc")]) as fake:
        plain = _post(fake, "/chat/completions", {"model": "m"}).text
        with_usage = _post(fake, "/v1/chat/completions", {"stream_options": {"include_usage": True}}).text
    assert plain.rstrip().endswith("data: [DONE]")
    assert '"usage"' not in plain and '"usage"' in with_usage


def test_ollama_stream_shape() -> None:
    with FakeLLM([Turn(text="abc", tool_calls=[ToolCall("t", {"a": 1})], usage=(3, 4))]) as fake:
        response = _post(fake, "/api/chat", {"model": "m"})
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert response.headers["content-type"] == "application/x-ndjson"
    assert "".join(line["message"]["content"] for line in lines) == "abc"
    assert lines[-2]["message"]["tool_calls"] == [{"function": {"name": "t", "arguments": {"a": 1}}}]
    assert lines[-1]["done"] is True and lines[-1]["eval_count"] == 4


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_error_bodies_and_retry_after(endpoint: str) -> None:
    with FakeLLM([Turn(status=429, retry_after=2, error_message="slow down")]) as fake:
        response = _post(fake, ENDPOINTS[endpoint], {"model": "m"})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"
    assert "slow down" in response.text
    body = response.json()
    if endpoint == "anthropic":
        assert body["error"]["type"] == "rate_limit_error"
    elif endpoint == "openai":
        assert body["error"]["message"] == "slow down"
    else:
        assert body == {"error": "slow down"}


def test_cut_stream_breaks_the_http_body() -> None:
    with FakeLLM([Turn(text="a long answer", text_chunks=5, cut_after=2)]) as fake:
        with pytest.raises(httpx.RemoteProtocolError):
            _post(fake, "/api/chat", {"model": "m"})
        assert _post(fake, "/api/chat", {}).status_code == 200  # the server lives on


def test_script_runs_out_then_says_so_and_push_adds_more() -> None:
    with FakeLLM([Turn(text="one")]) as fake:
        assert fake.remaining == 1
        _post(fake, "/api/chat", {})
        assert fake.remaining == 0
        assert _ollama_text(_post(fake, "/api/chat", {})) == "FakeLLM: script exhausted"
        fake.push(Turn(text="three"))
        assert _ollama_text(_post(fake, "/api/chat", {})) == "three"


def test_models_listing_and_unknown_routes() -> None:
    with FakeLLM() as fake:
        assert httpx.get(fake.url + "/v1/models").json()["data"][0]["id"] == "fake"
        assert httpx.get(fake.url + "/api/tags").status_code == 200
        assert httpx.post(fake.url + "/nope", json={}).status_code == 404
        assert httpx.post(fake.url + "/api/chat", content=b"not json").status_code == 400
        assert len(fake.requests) == 2 and len(fake.probes) == 2  # GETs are probes, not chat requests


def test_start_stop_and_url_before_start() -> None:
    fake = FakeLLM()
    with pytest.raises(RuntimeError):
        _ = fake.url
    fake.start()
    url = fake.url
    assert url.startswith("http://127.0.0.1:") and fake.openai_url == url + "/v1"
    fake.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/v1/models")


# ---- script files --------------------------------------------------------------------


def test_script_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "read_file", "arguments": {"path": "a"}, "id": "c1"}], "usage": [5, 6]},
                {"tool_calls": [{"name": "x", "arguments": "{oops"}]},
                "plain text turn",
                {"status": 429, "retry_after": 0.5},
            ]
        )
    )
    turns = load_script(path)
    assert turns[0].tool_calls == [ToolCall("read_file", {"path": "a"}, "c1")] and turns[0].usage == (5, 6)
    assert turns[1].tool_calls[0].arguments == "{oops"
    assert turns[2].text == "plain text turn"
    assert turns[3].status == 429 and turns[3].retry_after == 0.5
    with FakeLLM.from_file(path) as fake:
        assert len(fake.script) == 4


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"a": 1}', "expected a list of turns"),
        ('[{"txt": "x"}]', "turn 1: unknown field 'txt'"),
        ('[{"text": "ok"}, {"status": "500"}]', "turn 2: 'status' has the wrong type"),
        ('[{"cut_after": true}]', "'cut_after' has the wrong type"),
        ('[{"tool_calls": [{"arguments": {}}]}]', "tool_calls[0]: expected an object with a 'name'"),
        ('[{"usage": [1]}]', "'usage' must be a list of two integers"),
    ],
)
def test_bad_script_files_name_the_problem(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert str(info.value).startswith(str(path)) and message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_script_file(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="cannot read"):
        load_script(tmp_path / "nope.json")


# ---- command line --------------------------------------------------------------------


def test_command_line_serves_until_terminated(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "from the CLI"}]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "aiagent.testing.fakellm", "--script", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        response = httpx.post(url + "/api/chat", json={"model": "m"}, timeout=5)
        assert _ollama_text(response) == "from the CLI"
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=10)
    assert proc.returncode == 0, stderr
    assert stderr == ""


def test_command_line_rejects_a_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text('[{"bogus": 1}]')
    result = subprocess.run(
        [sys.executable, "-m", "aiagent.testing", "--script", str(script)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"fakellm: {script}: turn 1: unknown field 'bogus'"


def test_stopping_mid_stream_cuts_the_connection_instead_of_leaving_it_open() -> None:
    import threading
    import time

    import httpx

    from aiagent.testing import FakeLLM, Turn

    fake = FakeLLM([Turn(text="x" * 40, text_chunks=40, chunk_delay=0.05)]).start()
    outcome: dict[str, object] = {}

    def read() -> None:
        started = time.monotonic()
        try:
            with httpx.stream("POST", fake.url + "/v1/messages", json={"model": "m", "messages": []},
                              timeout=30) as response:
                for _ in response.iter_bytes():
                    pass
            outcome["how"] = "complete"
        except httpx.HTTPError as exc:
            outcome["how"] = type(exc).__name__
        outcome["seconds"] = time.monotonic() - started

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.5)
    fake.stop()
    reader.join(10)
    assert not reader.is_alive(), "the client was left waiting on an open connection"
    assert outcome["how"] != "complete" and float(outcome["seconds"]) < 5  # type: ignore[arg-type]
