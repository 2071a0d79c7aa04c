"""Retries, cut and stalled streams, and errors, for every provider over real HTTP."""

from __future__ import annotations

import socket
import time

import pytest
from provider_harness import SECRET, run

from aiagent.contracts.providers import (
    AuthError,
    InvalidRequestError,
    ModelNotFoundError,
    ProviderError,
    TextDelta,
)
from aiagent.testing import FakeLLM, Turn


def test_429_with_retry_after_then_success(provider_name: str) -> None:
    script = [Turn(status=429, retry_after=0.3), Turn(text="after the wait")]
    with FakeLLM(script) as fake:
        started = time.monotonic()
        outcome = run(provider_name, fake)
        elapsed = time.monotonic() - started
        assert len(fake.requests) == 2
    assert outcome.text == "after the wait"
    assert elapsed >= 0.3
    # the wait is announced (so a front-end can show it) with the server's delay
    assert [(r.attempt, r.delay) for r in outcome.restarts] == [(1, 0.3)]
    assert "429" in outcome.restarts[0].reason


def test_500_then_success(provider_name: str) -> None:
    with FakeLLM([Turn(status=500), Turn(status=503), Turn(text="fine now")]) as fake:
        outcome = run(provider_name, fake)
    assert outcome.text == "fine now"


# events before the cut: past the preamble and two text pieces, in each format
CUT_AFTER = {"anthropic": 5, "openai": 3, "ollama": 2}


def test_cut_stream_restarts_without_duplicated_text(provider_name: str) -> None:
    cut = CUT_AFTER[provider_name]
    script = [Turn(text="partial answer that gets cut", text_chunks=6, cut_after=cut), Turn(text="full answer")]
    with FakeLLM(script) as fake:
        outcome = run(provider_name, fake)
    assert len(outcome.restarts) == 1
    restart = outcome.restarts[0]
    assert restart.attempt == 1
    before = [e for e in outcome.events[: outcome.events.index(restart)] if isinstance(e, TextDelta)]
    assert before, "some text came before the cut"
    assert outcome.text == "full answer"
    assert outcome.stop == "end_turn"


def test_malformed_event_is_retried(provider_name: str) -> None:
    script = [Turn(text="one two three four", text_chunks=4, malformed=True), Turn(text="clean")]
    with FakeLLM(script) as fake:
        outcome = run(provider_name, fake)
    assert outcome.text == "clean"
    assert "malformed" in outcome.restarts[0].reason


def test_stalled_stream_times_out_and_retries(provider_name: str) -> None:
    script = [Turn(text="slow and then nothing", text_chunks=6, stall=3.0), Turn(text="quick")]
    with FakeLLM(script) as fake:
        started = time.monotonic()
        outcome = run(provider_name, fake, idle_timeout=0.3)
        elapsed = time.monotonic() - started
    assert outcome.text == "quick"
    assert "idle timeout" in outcome.restarts[0].reason
    assert elapsed < 2.5


def test_retries_are_bounded(provider_name: str) -> None:
    with FakeLLM([Turn(status=500, error_message="boom")] * 10) as fake:
        with pytest.raises(ProviderError) as info:
            run(provider_name, fake, max_retries=2)
        assert len(fake.requests) == 3
    message = str(info.value)
    assert "500" in message and "boom" in message and "gave up after 3 attempts" in message
    assert "\n" not in message


def test_cut_streams_are_bounded_too(provider_name: str) -> None:
    script = [Turn(text="abcdef", text_chunks=6, cut_after=3)] * 10
    with FakeLLM(script) as fake, pytest.raises(ProviderError, match="gave up after 3 attempts"):
        run(provider_name, fake, max_retries=2)


def test_retry_after_longer_than_allowed_fails_clearly(provider_name: str) -> None:
    with FakeLLM([Turn(status=429, retry_after=600)]) as fake:
        with pytest.raises(ProviderError, match="wait 600 s.*max_retry_wait") as info:
            run(provider_name, fake, max_retry_wait=60)
        assert len(fake.requests) == 1
    assert info.value.status == 429


def test_401_names_the_key_and_hides_it(provider_name: str) -> None:
    with FakeLLM([Turn(status=401, error_message=f"invalid key {SECRET}")]) as fake:
        with pytest.raises(AuthError) as info:
            run(provider_name, fake)
        assert len(fake.requests) == 1  # not retried
    message = str(info.value)
    assert "rejected" in message and "_API_KEY" in message
    assert SECRET not in message
    assert info.value.exit_code == 3


def test_missing_key_says_which_variable_to_set(provider_name: str) -> None:
    with FakeLLM([Turn(status=401)]) as fake, pytest.raises(AuthError, match="no API key.*set [A-Z]+_API_KEY"):
        run(provider_name, fake, api_key=None)


def test_404_names_the_model(provider_name: str) -> None:
    with FakeLLM([Turn(status=404)]) as fake:
        with pytest.raises(ModelNotFoundError) as info:
            run(provider_name, fake)
        url = fake.url
    assert "'test-model'" in str(info.value) and url in str(info.value)


def test_other_4xx_carries_the_server_message(provider_name: str) -> None:
    script = [Turn(status=400, error_message="max_tokens is too large")]
    with FakeLLM(script) as fake, pytest.raises(InvalidRequestError, match=r"invalid \(400\): max_tokens"):
        run(provider_name, fake)


def test_a_refused_loopback_connection_fails_at_once_with_a_hint(provider_name: str) -> None:
    """Nothing listens on a port of this machine: retrying cannot help (it cost 8.7 to
    10.7 s with five attempts), so the first refusal ends the run and says what to start."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with FakeLLM() as fake:
        base = {"openai": f"http://127.0.0.1:{port}/v1"}.get(provider_name, f"http://127.0.0.1:{port}")
        started = time.monotonic()
        with pytest.raises(ProviderError) as info:
            run(provider_name, fake, base_url=base, max_retries=4)
        elapsed = time.monotonic() - started
    message = str(info.value)
    assert elapsed < 1.0 and "gave up" not in message, message
    assert f"connection to http://127.0.0.1:{port}" in message and "refused" in message
    hint = ("is Ollama running? start it with `ollama serve`" if provider_name == "ollama"
            else f"is the server at {base} running?")
    assert hint in message


def test_slow_but_alive_stream_is_not_restarted(provider_name: str) -> None:
    script = [Turn(text="slow but fine", text_chunks=4, stall=0.3, chunk_delay=0.05)]
    with FakeLLM(script) as fake:
        outcome = run(provider_name, fake, idle_timeout=1.5)
    assert outcome.text == "slow but fine" and not outcome.restarts


def test_error_while_server_sends_html(provider_name: str) -> None:
    """A proxy's HTML error page still gives a one-line message."""
    script = [Turn(status=502, error_message="<html>\n<h1>Bad gateway</h1>\n</html>")] * 2
    with FakeLLM(script) as fake, pytest.raises(ProviderError) as info:
        run(provider_name, fake, max_retries=1)
    assert "502" in str(info.value) and "\n" not in str(info.value)
