"""Shell benchmarks: first-chunk latency and RSS growth under a flood of output.

    .venv/bin/python bench/bench_shell.py [--gib 1.0]

* first-chunk latency: the child prints a timestamp (time.time()) and sleeps; we measure
  the wall clock when the matching tool_output event reaches the emit callback
  (target <= 100 ms).
* RSS growth: the child writes N GiB to stdout; we sample our own RSS while it runs
  (target growth <= 50 MB).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from aiagent.agent.tools.shell import shutdown
from aiagent.agent.tools.shell.tools import ShellTool
from aiagent.contracts.tools import ToolContext

PY = sys.executable


async def first_chunk_latency(root: Path, runs: int = 10) -> list[float]:
    samples: list[float] = []
    for _ in range(runs):
        seen: list[float] = []

        def emit(event: object, seen: list[float] = seen) -> None:
            chunk = getattr(event, "chunk", "")
            if chunk.startswith("T=") and not seen:
                seen.append(time.time() - float(chunk[2:].split()[0]))

        ctx = ToolContext(workspace=root, emit=emit)
        code = "import time,sys; print('T=%r' % time.time(), flush=True); time.sleep(0.3)"
        await ShellTool().run({"command": [PY, "-c", code]}, ctx)
        await shutdown(ctx.state)
        samples.append(seen[0] * 1000)
    return samples


async def rss_growth(root: Path, gib: float) -> tuple[float, float, float]:
    proc = psutil.Process()
    base = proc.memory_info().rss
    peak = [base]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], proc.memory_info().rss)
            time.sleep(0.02)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    count = int(gib * 1024)  # 1 MiB blocks
    code = f"import sys; b=b'x'*1048575+b'\\n'; w=sys.stdout.buffer.write\nfor _ in range({count}): w(b)"
    chunks = [0]
    ctx = ToolContext(workspace=root, emit=lambda e: chunks.__setitem__(0, chunks[0] + 1),
                      settings={"shell": {"timeout": 600, "background_after": 0}})
    start = time.monotonic()
    result = await ShellTool().run({"command": [PY, "-c", code]}, ctx)
    took = time.monotonic() - start
    await shutdown(ctx.state)
    stop.set()
    thread.join()
    assert '"exit_code":0' in result.content, result.content[-300:]
    return (peak[0] - base) / 2**20, took, gib * 1024 / took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gib", type=float, default=1.0)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lat = asyncio.run(first_chunk_latency(root))
        print(f"first-chunk latency: median {statistics.median(lat):.1f} ms, max {max(lat):.1f} ms (target <= 100 ms)")
        growth, took, rate = asyncio.run(rss_growth(root, opts.gib))
        print(f"RSS growth while the child printed {opts.gib:g} GiB: {growth:.1f} MB "
              f"(target <= 50 MB); {took:.1f} s, {rate:.0f} MiB/s")


if __name__ == "__main__":
    main()
