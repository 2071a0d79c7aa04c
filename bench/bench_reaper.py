"""What the reaper costs: wall time of ``true`` through the process runner, with and
without the supervisor (median of N, the two modes interleaved so load hits both alike).

    .venv/bin/python bench/bench_reaper.py [-n 20]

Also prints the one-off cost of starting the reaper (paid by the first command of a run).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from aiagent.agent.tools.shell.env import command_env
from aiagent.infra.process import supervised
from aiagent.infra.process.capture import Capture
from aiagent.infra.process.runner import Limits, spawn


async def one(reaper: bool) -> float:
    os.environ["AIAGENT_NO_REAPER"] = "0" if reaper else "1"
    start = time.perf_counter()
    running = await spawn(["true"], cwd=Path.cwd(), env=command_env("bench"), capture=Capture(None, 64, 64, 0))
    await running.supervise(Limits(timeout=10))
    return time.perf_counter() - start


async def main(n: int) -> None:
    start = time.perf_counter()
    await one(True)
    first = time.perf_counter() - start
    await one(False)
    with_reaper, direct = [], []
    for _ in range(n):
        with_reaper.append(await one(True))
        direct.append(await one(False))
    med_r, med_d = statistics.median(with_reaper) * 1000, statistics.median(direct) * 1000
    print(f"first command (starts the reaper): {first * 1000:.1f} ms")
    print(f"`true` via reaper:  median {med_r:.1f} ms over {n}")
    print(f"`true` direct:      median {med_d:.1f} ms over {n}")
    print(f"overhead:           {med_r - med_d:+.1f} ms; reaper pid {supervised._REAPER.popen.pid if supervised._REAPER.popen else '-'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=20)
    asyncio.run(main(parser.parse_args().n))
