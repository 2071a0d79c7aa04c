"""Provider stream throughput and memory: one large answer (default 50 MB of text deltas)
from FakeLLM, run in its own process, read through a real provider (bounded body reader,
SSE/NDJSON parsing, event decoding).

Prints, per provider, the median over the runs of MB/s of text, events/s, and this
process's peak RSS (the stream must not be held whole: the text is counted, not kept).
Run: .venv/bin/python bench/bench_stream.py [--mb 50] [--chunk 256] [--runs 5] [--provider openai]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from aiagent.contracts.messages import Message
from aiagent.contracts.providers import CompletionRequest, ProviderConfig, TextDelta
from aiagent.infra.providers import create_provider

BASES = {"openai": "/v1", "anthropic": "", "ollama": ""}


class ExternalFake:
    """FakeLLM in its own process serving ``runs`` copies of one large answer."""

    def __init__(self, text_bytes: int, chunk: int, runs: int) -> None:
        self.text_bytes, self.chunks, self.runs = text_bytes, max(1, text_bytes // chunk), runs

    def __enter__(self) -> ExternalFake:
        self.script = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        self._write_script()
        self.proc = subprocess.Popen([sys.executable, "-m", "aiagent.testing.fakellm", "--script", self.script.name],
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        return self

    def _write_script(self) -> None:
        """The script, written piece by piece, so this process never holds the answer."""
        tail = json.dumps({"text_chunks": self.chunks, "usage": [10, 5]})[1:]
        block = "x" * 1_000_000
        self.script.write("[")
        for run in range(self.runs):
            self.script.write(("," if run else "") + '{"text": "')
            for start in range(0, self.text_bytes, len(block)):
                self.script.write(block[: self.text_bytes - start])
            self.script.write('", ' + tail)
        self.script.write("]")
        self.script.close()

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()
        os.unlink(self.script.name)


async def one_run(name: str, url: str) -> tuple[float, int, int]:
    """(seconds, text bytes, text events) of one streamed answer."""
    config = ProviderConfig(base_url=url + BASES[name], api_key="bench", max_output_chars=0,
                            max_body_bytes=0, context_window=10**9, max_retries=0)
    provider = create_provider(name, config)
    request = CompletionRequest("bench", "", [Message.user("go")], max_tokens=1000)
    size = events = 0
    started = time.perf_counter()
    try:
        async for event in provider.stream(request):
            if isinstance(event, TextDelta):
                size += len(event.text)
                events += 1
    finally:
        await provider.aclose()
    return time.perf_counter() - started, size, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="text per answer, in MB")
    parser.add_argument("--chunk", type=int, default=256, help="characters per text delta")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--provider", choices=sorted(BASES), action="append")
    args = parser.parse_args()
    text_bytes = int(args.mb * 1_000_000)
    for name in args.provider or ["openai"]:
        with ExternalFake(text_bytes, args.chunk, args.runs) as fake:
            results = [asyncio.run(one_run(name, fake.url)) for _ in range(args.runs)]
        assert all(size == text_bytes for _, size, _ in results), "short answer"
        mbps = statistics.median(size / 1e6 / secs for secs, size, _ in results)
        eps = statistics.median(events / secs for secs, _, events in results)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{name}: {args.mb:g} MB in {args.chunk}-char deltas, median of {args.runs}: "
              f"{mbps:.1f} MB/s, {eps:,.0f} events/s; peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
