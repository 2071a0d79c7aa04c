"""The repository map on real code of about 100,000 lines, cold and warm, and `ast_search`.

    .venv/bin/python bench/bench_repomap.py [--lines 100000] [--runs 5]

The tree is a copy of Python packages from this interpreter's site-packages (real code we
did not write), cut at ``--lines``. Cold = no tag cache (every file parsed); warm = the
cache written by the previous run (nothing changed). Targets (issue 17): cold <= 5 s,
warm <= 300 ms. Medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from aiagent.agent.tools.ast import search
from aiagent.agent.tools.repomap import TagCache, build_map

PACKAGES = ("pip", "rich", "httpx", "click", "jsonschema", "pygments", "yaml", "idna", "_pytest")


def make_tree(root: Path, lines: int) -> tuple[int, int]:
    """Copy .py files until ``lines``; returns (files, lines) copied."""
    site = Path(sysconfig.get_paths()["purelib"])
    files = total = 0
    for package in PACKAGES:
        for source in sorted((site / package).rglob("*.py")) if (site / package).is_dir() else []:
            if total >= lines:
                return files, total
            target = root / package / source.relative_to(site / package)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            files += 1
            total += source.read_bytes().count(b"\n")
    return files, total


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root, cache = Path(tmp) / "tree", Path(tmp) / "cache.json"
        files, lines = make_tree(root, args.lines)
        print(f"tree: {files} Python files, {lines:,} lines (copied from site-packages)")
        cold, warm = [], []
        for _ in range(args.runs):
            cache.unlink(missing_ok=True)
            cold.append(timed(lambda: build_map(root, tokens=1024, cache=TagCache(cache))))
            warm.append(timed(lambda: build_map(root, tokens=1024, cache=TagCache(cache))))
        focused = timed(lambda: build_map(root, focus=["rich/console.py"], tokens=1024,
                                          cache=TagCache(cache)))
        ast = [timed(lambda: search(root, find="call", name="execute", query=None, language=None,
                                    limit=50)) for _ in range(args.runs)]
        print(f"repo map cold : median {statistics.median(cold):6.2f} s   (target <= 5 s)")
        print(f"repo map warm : median {statistics.median(warm) * 1000:6.0f} ms  (target <= 300 ms)")
        print(f"repo map warm, focus on one file: {focused * 1000:6.0f} ms")
        print(f"ast_search find=call over the tree: median {statistics.median(ast):6.2f} s")
        print(f"python {sys.version.split()[0]}, {args.runs} runs")


if __name__ == "__main__":
    main()
