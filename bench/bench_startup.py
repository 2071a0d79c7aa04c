"""Start-up time of `aiagent --version` and `aiagent --help`, beside bare `python -c pass`.

Targets (issue 2): --version median <= 100 ms, --help <= 200 ms on a 2-core machine.
Run: .venv/bin/python bench/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def measure(argv: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "aiagent --version": [AIAGENT, "--version"],
        "aiagent --help": [AIAGENT, "--help"],
    }
    targets = {"aiagent --version": 100.0, "aiagent --help": 200.0}
    measure(cases["aiagent --help"], 2)  # warm the file cache
    print(f"{'command':<22}{'median ms':>10}{'min ms':>9}{'target':>9}")
    for name, argv in cases.items():
        times = measure(argv, runs)
        target = targets.get(name)
        verdict = "" if target is None else f"{'≤' if statistics.median(times) <= target else '>'}{target:.0f}"
        print(f"{name:<22}{statistics.median(times):>10.1f}{min(times):>9.1f}{verdict:>9}")


if __name__ == "__main__":
    main()
