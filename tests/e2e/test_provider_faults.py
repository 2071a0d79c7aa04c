"""The real ``aiagent`` command against hostile and broken model servers (FakeLLM faults).

Each run is watched from outside: the child's peak RSS is sampled (psutil) while it
runs, and the run must end in the cap's time, with the right exit code and a one-line
error naming the cap. Beside each fault, the legitimate twin that must keep working.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from aiagent.testing import FakeLLM, ToolCall, Turn

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
MiB = 1024 * 1024
RSS_LIMIT = 200 * MiB


@dataclass
class Watched:
    returncode: int
    stdout: str
    stderr: str
    peak_rss: int
    seconds: float
    ended: float  # time.monotonic() when the run was seen to end

    def seconds_after(self, fake: FakeLLM) -> float:
        """From the first chat request to the end of the run: what a cap's time bounds
        (start-up time varies with the machine's load)."""
        return self.ended - chat_requests(fake)[0]["time"]

    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("aiagent: error:")]


def watch_run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 60) -> Watched:
    """Run ``aiagent`` and sample its RSS (with any children) every 20 ms until it ends."""
    started = time.monotonic()
    proc = subprocess.Popen([AIAGENT, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    box: dict[str, str] = {}
    reader = threading.Thread(target=lambda: box.update(zip(("out", "err"), proc.communicate(), strict=True)))
    reader.start()
    try:
        root = psutil.Process(proc.pid)
        while proc.poll() is None and time.monotonic() - started < timeout:
            try:
                rss = root.memory_info().rss + sum(c.memory_info().rss for c in root.children(recursive=True))
            except psutil.Error:
                rss = 0
            peak = max(peak, rss)
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            proc.kill()
        reader.join(timeout=10)
    ended = time.monotonic()
    return Watched(proc.returncode, box.get("out", ""), box.get("err", ""), peak, ended - started, ended)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / ".agent").mkdir(parents=True)
    (folder / "README.md").write_text("hello\n")
    return folder


def network(project: Path, **values: Any) -> None:
    lines = ["[network]", "backoff_base = 0.01", "backoff_max = 0.05"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in values.items()]
    (project / ".agent" / "config.toml").write_text("\n".join(lines) + "\n")


def openai_env(clean_env: dict[str, str], fake: FakeLLM) -> dict[str, str]:
    return {**clean_env, "OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test"}


ARGS = ["--headless", "--provider", "openai", "--model", "test-model", "--prompt", "go"]


def chat_requests(fake: FakeLLM) -> list[dict[str, Any]]:
    """The chat requests (not the one-off limits probe)."""
    return [r for r in fake.requests if r["json"] is not None]


def assert_one_line_error(run: Watched, *words: str) -> None:
    errors = run.error_lines()
    assert len(errors) == 1, run.stderr
    for word in words:
        assert word in errors[0], run.stderr
    assert "Traceback" not in run.stderr


# ---- faults -----------------------------------------------------------------------------


def test_giant_line_is_capped(project: Path, clean_env: dict[str, str]) -> None:
    """1 GB in one line, no newline: stops at the default 8 MiB line cap."""
    network(project, max_retries=2)
    with FakeLLM([Turn(fault="giant_line", fault_bytes=1 << 30)]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake))
        assert len(chat_requests(fake)) == 1  # a cap is not retried
    assert run.returncode == 3, run.stderr
    assert_one_line_error(run, "8 MiB", "max_line_bytes")
    assert run.peak_rss < RSS_LIMIT, run.peak_rss
    assert run.seconds_after(fake) < 10


def test_gzip_bomb_is_capped(project: Path, clean_env: dict[str, str]) -> None:
    network(project, max_body_bytes=64 * MiB)
    with FakeLLM([Turn(fault="gzip_bomb", fault_bytes=4 << 30)]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake))
    assert run.returncode == 3, run.stderr
    assert_one_line_error(run, "64 MiB", "max_body_bytes")
    assert run.peak_rss < RSS_LIMIT, run.peak_rss
    assert run.seconds_after(fake) < 15


def test_gzip_answer_works(project: Path, clean_env: dict[str, str]) -> None:
    with FakeLLM([Turn(text="zipped fine", gzip=True)]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "zipped fine"


def test_keepalives_only_end_at_the_idle_timeout(project: Path, clean_env: dict[str, str]) -> None:
    network(project, idle_timeout=2.0, max_retries=0)
    with FakeLLM([Turn(fault="keepalive_forever", fault_seconds=60)]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake))
    assert run.returncode == 3, run.stderr
    assert_one_line_error(run, "idle timeout", "keep-alives do not count")
    assert 2.0 <= run.seconds_after(fake) < 6


def test_slow_tokens_outlive_the_idle_timeout(project: Path, clean_env: dict[str, str]) -> None:
    network(project, idle_timeout=1.5, max_retries=0)
    turn = Turn(text="one two three four five six", text_chunks=6, chunk_delay=0.4)
    with FakeLLM([turn]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "one two three four five six"


def test_endless_tokens_stop_at_the_output_cap(project: Path, clean_env: dict[str, str]) -> None:
    network(project, max_output_chars=200_000)
    with FakeLLM([Turn(fault="endless_tokens", fault_seconds=120)]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake), timeout=90)
    assert run.returncode == 3, run.stderr
    assert_one_line_error(run, "200000 characters", "max_output_chars")
    assert run.peak_rss < RSS_LIMIT, run.peak_rss


def test_endless_tokens_stop_at_the_turn_deadline(project: Path, clean_env: dict[str, str]) -> None:
    network(project, max_output_chars=0, turn_timeout=3.0)
    with FakeLLM([Turn(fault="endless_tokens", fault_seconds=120)]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake))
    assert run.returncode == 4, run.stderr
    assert_one_line_error(run, "within 3 s", "turn_timeout")
    assert 3.0 <= run.seconds_after(fake) < 7
    assert run.peak_rss < RSS_LIMIT, run.peak_rss


def test_validation_error_is_not_retried(project: Path, clean_env: dict[str, str]) -> None:
    said = "[json.exception.type_error.302] type must be string, but is null"
    with FakeLLM([Turn(status=500, error_message=said), Turn(text="never")]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake))
        assert len(chat_requests(fake)) == 1
    assert run.returncode == 6, run.stderr
    assert_one_line_error(run, "rejected the request as invalid (500)", "type must be string")


def test_transient_500_is_retried(project: Path, clean_env: dict[str, str]) -> None:
    network(project, max_retries=2)
    with FakeLLM([Turn(status=503), Turn(text="after a retry")]) as fake:
        run = watch_run(ARGS, project, openai_env(clean_env, fake))
        assert len(chat_requests(fake)) == 2
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "after a retry"


# ---- the wire shape a strict server needs -----------------------------------------------


def test_tool_round_trip_sends_no_null_content(project: Path, clean_env: dict[str, str]) -> None:
    script = [Turn(tool_calls=[ToolCall("read_file", {"file_path": "README.md"})]), Turn(text="read it")]
    with FakeLLM(script) as fake:
        run = watch_run([*ARGS, "--approval-mode", "full-auto"], project, openai_env(clean_env, fake))
        follow_up = chat_requests(fake)[1]["json"]["messages"]
    assert run.returncode == 0, run.stderr
    assistant = next(m for m in follow_up if m["role"] == "assistant")
    assert assistant["content"] == "" and assistant["tool_calls"][0]["function"]["name"] == "read_file"
    assert all(m.get("content") is not None for m in follow_up)
    tool = next(m for m in follow_up if m["role"] == "tool")
    assert "hello" in tool["content"]


# ---- usage ------------------------------------------------------------------------------


def test_usage_unknown_when_the_server_reports_none(project: Path, clean_env: dict[str, str]) -> None:
    with FakeLLM([Turn(text="no usage", usage=None), Turn(text="no usage", usage=None)]) as fake:
        env = openai_env(clean_env, fake)
        as_json = watch_run([*ARGS, "--output", "json"], project, env)
        as_md = watch_run([*ARGS, "--output", "markdown"], project, env)
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["usage"] is None
    assert "tokens in/out: unknown" in as_md.stdout


def test_usage_shown_when_reported(project: Path, clean_env: dict[str, str]) -> None:
    with FakeLLM([Turn(text="usage", usage=(20, 10)), Turn(text="usage", usage=(20, 10))]) as fake:
        env = openai_env(clean_env, fake)
        as_json = watch_run([*ARGS, "--output", "json"], project, env)
        as_md = watch_run([*ARGS, "--output", "markdown"], project, env)
    assert json.loads(as_json.stdout)["usage"]["input_tokens"] == 20
    assert "tokens in/out: 20/10" in as_md.stdout


# ---- provider auto-detection ------------------------------------------------------------

NO_PROVIDER = ["--headless", "--prompt", "go"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_only_one_key_picks_that_provider(project: Path, clean_env: dict[str, str], name: str) -> None:
    with FakeLLM([Turn(text=f"hello from {name}")]) as fake:
        base = fake.openai_url if name == "openai" else fake.url
        env = {**clean_env, f"{name.upper()}_API_KEY": "sk-test", f"{name.upper()}_BASE_URL": base,
               "AIAGENT_MODEL": "test-model", "OLLAMA_HOST": f"127.0.0.1:{_closed_port()}"}
        run = watch_run(NO_PROVIDER, project, env)
        path = chat_requests(fake)[0]["path"]
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"hello from {name}"
    notes = [line for line in run.stderr.splitlines() if "using provider" in line]
    if name == "anthropic":  # the built-in default: used as before, nothing to announce
        assert notes == []
    else:
        assert notes == [f"aiagent: using provider {name} ({name.upper()}_API_KEY is set; "
                         "choose another with --provider)"]
    assert path.endswith("/chat/completions" if name == "openai" else "/v1/messages")


def test_reachable_ollama_is_picked(project: Path, clean_env: dict[str, str]) -> None:
    with FakeLLM([Turn(text="hello from ollama")]) as fake:
        env = {**clean_env, "OLLAMA_HOST": fake.url, "AIAGENT_MODEL": "test-model"}
        run = watch_run(NO_PROVIDER, project, env)
        paths = [r["path"] for r in fake.requests]
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "hello from ollama"
    assert "aiagent: using provider ollama (Ollama answers at" in run.stderr
    assert "/api/chat" in paths


def test_nothing_available_names_what_to_set(project: Path, clean_env: dict[str, str]) -> None:
    env = {**clean_env, "OLLAMA_HOST": f"127.0.0.1:{_closed_port()}"}
    run = watch_run(NO_PROVIDER, project, env)
    assert run.returncode == 3, run.stderr
    assert_one_line_error(run, "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OLLAMA_HOST")


def test_silent_ollama_port_costs_only_the_probe_timeout() -> None:
    """A port that accepts but never answers: the probe gives up after ~0.3 s; a real
    (fake) Ollama answers."""
    from aiagent.app.provider import PROBE_SECONDS, ollama_answers

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        started = time.monotonic()
        assert not ollama_answers(f"127.0.0.1:{silent.getsockname()[1]}")
        assert PROBE_SECONDS <= time.monotonic() - started < 1.5
    with FakeLLM() as fake:
        assert ollama_answers(fake.url)


def test_an_explicit_provider_is_never_overridden(project: Path, clean_env: dict[str, str]) -> None:
    env = {**clean_env, "OPENAI_API_KEY": "sk-test", "AIAGENT_PROVIDER": "anthropic"}
    run = watch_run(NO_PROVIDER, project, env)
    assert run.returncode == 3, run.stderr
    assert "using provider" not in run.stderr
    assert_one_line_error(run, "ANTHROPIC_API_KEY")
