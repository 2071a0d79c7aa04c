"""Command analysis speed: parse + classify realistic shell lines.

    .venv/bin/python bench/bench_commands.py [--lines 1000]

Builds ~1,000 distinct lines of the kinds a model sends (tests, git, search, pipes,
redirections, wrappers, substitutions), then times, per line and uncached, what the policy
does on a shell call: ``parse`` (tree-sitter-bash + normalisation), ``is_read_only`` and a
deny check. Prints the median, 95th percentile and maximum (target: median well under 1 ms).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

from aiagent.agent.permissions import commands

BASES = [
    "npm test", "npm test -- --watch=false", "CI=1 /usr/bin/npm test", "pytest tests/ -q",
    "git log --oneline -{n}", "git status", "git diff --stat HEAD~{n}", "ls -la src/{n}",
    "rg -n 'def test_{n}' src tests", "find . -name '*.py' -newer setup.py", "cat README.md",
    "grep -rn TODO src | head -{n}", "cd web && npm run build", "sort -u names{n}.txt",
    "python -m pytest -x tests/test_{n}.py", "echo $(git rev-parse HEAD)", "ls *.py | wc -l",
    "timeout 60 cargo test --workspace", "docker run --rm -e A={n} img make check",
    "sed -n '{n},+5p' src/main.py", "git -c core.pager=cat log -{n}", "make -j4 all > build.log",
]
SUFFIXES = ["", " 2>&1 | tail -20", " && echo ok", " # step {n}", "; git status", " >/dev/null"]


def lines(count: int) -> list[str]:
    out = []
    for i, (base, suffix) in enumerate(itertools.product(BASES, SUFFIXES)):
        out.append((base + suffix).format(n=i))
    while len(out) < count:
        out.append(out[len(out) % len(BASES)] + f" # {len(out)}")
    return out[:count]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=1000)
    args = parser.parse_args()
    sample = lines(args.lines)
    started = time.perf_counter()
    commands.parse("true")  # load the grammar and the data once
    warm = time.perf_counter() - started
    times = []
    for text in sample:
        commands._analyse.cache_clear()
        t0 = time.perf_counter()
        line = commands.parse(text)
        commands.is_read_only(line)
        commands.denies("rm", line)
        times.append(time.perf_counter() - t0)
    times.sort()
    ms = [t * 1000 for t in times]
    print(f"command analysis over {len(ms)} lines (first call, grammar load: {warm * 1000:.1f} ms)")
    print(f"  median {statistics.median(ms):.3f} ms   p95 {ms[int(len(ms) * 0.95)]:.3f} ms   "
          f"max {ms[-1]:.3f} ms")


if __name__ == "__main__":
    main()
