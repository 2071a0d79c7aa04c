"""Stream bounds and the retry policy, for every provider, over real HTTP (FakeLLM faults).

Each hostile stream has its legitimate twin beside it: a long but normal answer, a
gzip-compressed normal answer, a slow answer whose tokens keep it alive.
"""

from __future__ import annotations

import time

import pytest
from provider_harness import run

from aiagent.contracts.providers import (
    InvalidRequestError,
    ProviderError,
    StreamLimitError,
    TurnTimeoutError,
)
from aiagent.testing import FakeLLM, Turn

MiB = 1024 * 1024


def test_giant_line_stops_at_the_line_cap(provider_name: str) -> None:
    turn = Turn(fault="giant_line", fault_bytes=64 * MiB)
    with FakeLLM([turn]) as fake:
        started = time.monotonic()
        with pytest.raises(StreamLimitError) as info:
            run(provider_name, fake, max_line_bytes=1 * MiB, max_retries=3)
        assert len(fake.requests) == 1  # a cap is not retried
    assert time.monotonic() - started < 5
    assert "max_line_bytes" in str(info.value) and "\n" not in str(info.value)


def test_long_line_under_the_cap_is_fine(provider_name: str) -> None:
    text = "x" * (512 * 1024)  # one 512 KiB text delta: one long line
    with FakeLLM([Turn(text=text, text_chunks=1)]) as fake:
        outcome = run(provider_name, fake, max_line_bytes=1 * MiB)
    assert outcome.text == text


def test_gzip_bomb_stops_at_the_body_cap(provider_name: str) -> None:
    turn = Turn(fault="gzip_bomb", fault_bytes=2048 * MiB)
    with FakeLLM([turn]) as fake:
        started = time.monotonic()
        with pytest.raises(StreamLimitError, match=r"max_body_bytes"):
            run(provider_name, fake, max_body_bytes=32 * MiB, idle_timeout=30)
        assert len(fake.requests) == 1
    assert time.monotonic() - started < 30  # far short of the whole stream (slack for loaded machines)


def test_gzip_encoded_answer_is_read(provider_name: str) -> None:
    """A server that compresses a normal answer is understood (we accept gzip)."""
    with FakeLLM([Turn(text="compressed hello", gzip=True)]) as fake:
        outcome = run(provider_name, fake, max_body_bytes=1 * MiB)
        assert "gzip" in fake.requests[0]["headers"]["accept-encoding"]
    assert outcome.text == "compressed hello"


def test_keepalives_do_not_reset_the_idle_timer(provider_name: str) -> None:
    turn = Turn(fault="keepalive_forever", fault_seconds=30)
    with FakeLLM([turn]) as fake:
        started = time.monotonic()
        with pytest.raises(ProviderError) as info:
            run(provider_name, fake, idle_timeout=1.0, max_retries=0)
        elapsed = time.monotonic() - started
    assert "idle timeout" in str(info.value) and "keep-alives do not count" in str(info.value)
    assert 0.9 <= elapsed < 4


def test_slow_tokens_keep_the_stream_alive(provider_name: str) -> None:
    """Progress resets the idle timer: 8 pieces 0.25 s apart (2 s) outlive a 1.5 s idle
    timeout."""
    turn = Turn(text="slow but steady progress", text_chunks=8, chunk_delay=0.25)
    with FakeLLM([turn]) as fake:
        outcome = run(provider_name, fake, idle_timeout=1.5, max_retries=0)
    assert outcome.text == "slow but steady progress"


def test_endless_tokens_stop_at_the_output_cap(provider_name: str) -> None:
    turn = Turn(fault="endless_tokens", fault_seconds=60)
    with FakeLLM([turn]) as fake:
        started = time.monotonic()
        with pytest.raises(StreamLimitError, match=r"200000 characters.*max_output_chars"):
            run(provider_name, fake, max_output_chars=200_000)
        assert len(fake.requests) == 1
    assert time.monotonic() - started < 30  # far short of the whole stream (slack for loaded machines)


def test_turn_deadline_ends_an_endless_stream(provider_name: str) -> None:
    turn = Turn(fault="endless_tokens", fault_seconds=60)
    with FakeLLM([turn]) as fake:
        started = time.monotonic()
        with pytest.raises(TurnTimeoutError, match=r"within 1.5 s \(\[network\] turn_timeout\)") as info:
            run(provider_name, fake, max_output_chars=0, turn_timeout=1.5)
    assert info.value.exit_code == 4
    assert time.monotonic() - started < 10


def test_validation_error_500_is_not_retried(provider_name: str) -> None:
    message = "[json.exception.type_error.302] type must be string, but is null"
    with FakeLLM([Turn(status=500, error_message=message), Turn(text="never")]) as fake:
        with pytest.raises(InvalidRequestError) as info:
            run(provider_name, fake, max_retries=4)
        assert len(fake.requests) == 1
    assert info.value.exit_code == 6
    assert "type must be string" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("status", [400, 422])
def test_400_and_422_are_not_retried(provider_name: str, status: int) -> None:
    with FakeLLM([Turn(status=status, error_message="messages[1].content: invalid"), Turn(text="x")]) as fake:
        with pytest.raises(InvalidRequestError, match=rf"invalid \({status}\): messages\[1\]"):
            run(provider_name, fake, max_retries=4)
        assert len(fake.requests) == 1


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504, 529])
def test_transient_statuses_are_retried(provider_name: str, status: int) -> None:
    with FakeLLM([Turn(status=status, error_message="try later"), Turn(text="ok")]) as fake:
        outcome = run(provider_name, fake)
        assert len(fake.requests) == 2
    assert outcome.text == "ok"


def test_context_overflow_from_llama_cpp_is_recognised(provider_name: str) -> None:
    from aiagent.contracts.providers import ContextOverflowError

    said = "request (4476 tokens) exceeds the available context size (4096 tokens)"
    with FakeLLM([Turn(status=400, error_message=said)]) as fake:
        with pytest.raises(ContextOverflowError):
            run(provider_name, fake)
        assert len(fake.requests) == 1


def test_no_usage_reported_gives_no_usage_event(provider_name: str) -> None:
    from aiagent.contracts.providers import UsageReport

    with FakeLLM([Turn(text="no usage here", usage=None)]) as fake:
        outcome = run(provider_name, fake)
    assert outcome.text == "no usage here"
    assert not [e for e in outcome.kept if isinstance(e, UsageReport)]


@pytest.mark.parametrize(
    ("chunks", "lines"),
    [
        ([b"data: a", b"\n", b"\n", b"data: b\n\n"], ["data: a", "", "data: b", ""]),
        ([b"data: a", b"\n\n\n\n", b"data: b\r\n\r\n"], ["data: a", "", "data: b", ""]),
        ([b"x\n", b"\n\n", b"y"], ["x", "", "y"]),
        ([b"da", b"ta: \xc3", b"\xa9\n"], ["data: é"]),  # a character split across chunks
    ],
)
def test_line_splitting_across_chunk_boundaries(chunks: list[bytes], lines: list[str]) -> None:
    """Lines as SSE/NDJSON need them, wherever the network cut the bytes; runs of blank
    lines come out as one."""
    import asyncio

    from aiagent.infra.providers.body import BodyLimits, bounded_lines

    class Body:  # the one attribute and method bounded_lines reads of a response
        headers: dict[str, str] = {}

        async def aiter_raw(self):  # type: ignore[no-untyped-def]
            for chunk in chunks:
                yield chunk

    async def read() -> list[str]:
        return [line async for line in bounded_lines(Body(), BodyLimits("t", 100, 10_000))]  # type: ignore[arg-type]

    assert asyncio.run(read()) == lines
