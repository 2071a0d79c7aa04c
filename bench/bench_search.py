"""grep_files / search against raw rg on a generated tree (default 50,000 files).

    .venv/bin/python bench/bench_search.py [--files 50000]

Overhead = (tool time - rg time) / rg time, medians of 9 alternating runs (target <= 20%).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from aiagent.agent.tools.search import GrepFilesTool, SearchTool, find_rg
from aiagent.contracts.tools import ToolContext

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"]


def make_tree(root: Path, files: int) -> None:
    rng = random.Random(7)
    for i in range(files):
        folder = root / f"d{i % 250:03}" / f"s{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n".join(" ".join(rng.choices(WORDS, k=8)) for _ in range(20))
        if i % 97 == 0:
            body += "\nneedle_marker here\n"
        (folder / f"f{i}.txt").write_text(body)


def paired_times(first, second, runs: int = 9) -> tuple[float, float]:
    """Alternate the two so that load from other processes hits both alike; medians."""
    a, b = [], []
    for _ in range(runs):
        for fn, out in ((first, a), (second, b)):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return statistics.median(a), statistics.median(b)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50_000)
    opts = parser.parse_args()
    rg = find_rg()
    assert rg, "rg not found (pip install ripgrep==14.1.0)"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_tree(root, opts.files)
        ctx = ToolContext(workspace=root)
        cases = [
            ("grep_files", [rg, "--files-with-matches", "--sortr=modified", "--regexp", "needle_marker", "--no-messages", "--", str(root)],
             lambda: asyncio.run(GrepFilesTool().run({"pattern": "needle_marker", "limit": 2000}, ctx))),
            ("search", [rg, "--json", "--sort=path", "--context=0", "--regexp", "needle_marker", "--", str(root)],
             lambda: asyncio.run(SearchTool().run({"pattern": "needle_marker", "max_results": 1000}, ctx))),
        ]
        for name, cmd, tool in cases:
            raw, ours = paired_times(lambda cmd=cmd: subprocess.run(cmd, capture_output=True, cwd=root), tool)
            print(f"{name}: tool {ours * 1000:.0f} ms, raw rg {raw * 1000:.0f} ms, "
                  f"overhead {100 * (ours - raw) / raw:+.1f}% (target <= 20%) on {opts.files} files")


if __name__ == "__main__":
    main()
