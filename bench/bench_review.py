"""NFR-4: the code review pipeline's own overhead (everything but model time) on a
2,000-line diff. Target: <= 2 s.

Usage: python bench/bench_review.py [--lines 2000] [--files 20] [--runs 5]

Builds a git repository with --files Python modules, commits, then changes about --lines
lines across them (added and edited functions, a few vulnerable patterns) in a second
commit. Times `review()` on `base..feature` with an agent that answers at once
(`{"findings": []}`), so what is measured is diff selection and parsing, the static part,
chunking with tree-sitter, prompt building and validation: cold (no scan cache) and warm.
`git diff` of the same range is printed beside it as the floor. Prints medians.

Then the real command in a fresh process, ``aiagent --headless --mode=code-review --diff
base..feature -o json``: with no model (static part only) and with FakeLLM on loopback
answering every prompt at once (the model part's own overhead: agent set-up, prompts,
validation). Wall and CPU seconds (user + system, the process and its git children, read
with ``os.wait4``): the machine may be shared. Bytecode is cached first, as an installed
package has it (``PYTHONDONTWRITEBYTECODE`` is dropped for these runs: with it set, every
fresh process compiles every module again, about a second of CPU).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

BASE = '''import os


def handler_{n}(request, cur):
    ident = request.args.get("id")
    total = 0
    for i in range({n} % 7 + 3):
        total += i * {n}
    cur.execute("SELECT * FROM t WHERE id = %s", (ident,))
    return {{"id": ident, "total": total}}
'''

ADDED = '''

def feature_{n}_{k}(items, cur, name):
    """Added in the feature branch."""
    result = []
    for item in items:
        if item.get("enabled"):
            result.append(item["value"] * {k})
    cur.execute("SELECT * FROM users WHERE name = '" + name + "'")
    os.system("echo " + name)
    return result
'''


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x",
                        "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@x"})


def build(root: Path, lines: int, files: int) -> None:
    git(root, "init", "-q", "-b", "base")
    for n in range(files):
        (root / f"mod_{n}.py").write_text(BASE.format(n=n))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    per_block = ADDED.count("\n")
    blocks = max(lines // per_block, 1)
    for b in range(blocks):
        path = root / f"mod_{b % files}.py"
        path.write_text(path.read_text() + ADDED.format(n=b % files, k=b))
    git(root, "commit", "-qam", "feature")


class InstantAgent:
    """Answers every prompt at once: model time is zero."""

    async def run(self, user_input: str) -> AsyncIterator[object]:
        from aiagent.contracts.events import DoneEvent
        from aiagent.contracts.messages import Usage

        yield DoneEvent("completed", '{"findings": []}', 1, Usage(), 0)

    async def aclose(self) -> None:
        return None


def once(root: Path, cache: Path, cold: bool) -> tuple[float, int, int]:
    from aiagent.engines.review import DiffSpec, ReviewRequest, review

    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    started = time.perf_counter()
    report = review(ReviewRequest(root, DiffSpec(range="base..feature")), InstantAgent)
    elapsed = time.perf_counter() - started
    changed = sum(f.changed_count for f in report.files)
    if os.environ.get("BENCH_VERBOSE"):
        print({k: round(v, 3) for k, v in report.timings.items()})
    return elapsed, changed, len(report.findings)


def fresh(root: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of the real command in a new process."""
    aiagent = str(Path(sys.executable).with_name("aiagent"))
    cmd = [aiagent, "--headless", "--mode=code-review", "--diff", "base..feature", "-o", "json"]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"aiagent exited {proc.returncode}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def fresh_runs(root: Path, runs: int) -> dict[str, tuple[float, float]]:
    from aiagent.testing import FakeLLM, Turn

    env = {k: v for k, v in os.environ.items() if k not in (
        "PYTHONDONTWRITEBYTECODE", "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
        "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "AIAGENT_PROVIDER")}
    env["OLLAMA_HOST"] = "127.0.0.1:9"  # nothing answers: no model
    fresh(root, env)  # writes the bytecode, as installing the package does
    out: dict[str, tuple[float, float]] = {}
    timed = [fresh(root, env) for _ in range(runs)]
    out["no model (static part)"] = (statistics.median(t[0] for t in timed),
                                     statistics.median(t[1] for t in timed))
    answer = Turn(text='{"findings": []}')
    with FakeLLM([answer] * 200) as fake:
        model = {**env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-bench-1"}
        timed = [fresh(root, model) for _ in range(runs)]
    out["FakeLLM answering at once"] = (statistics.median(t[0] for t in timed),
                                        statistics.median(t[1] for t in timed))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root, cache = Path(tmp) / "repo", Path(tmp) / "cache"
        root.mkdir()
        os.environ["XDG_CACHE_HOME"] = str(cache)
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        build(root, args.lines, args.files)
        asyncio.set_event_loop_policy(None)
        processes = fresh_runs(root, args.runs)
        first, changed, found = once(root, cache, cold=True)  # includes imports, rule loading
        cold = [once(root, cache, cold=True)[0] for _ in range(args.runs)]
        warm = [once(root, cache, cold=False)[0] for _ in range(args.runs)]
        floor = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run(["git", "diff", "base..feature"], cwd=root, capture_output=True,
                           check=True)
            floor.append(time.perf_counter() - started)
    print(f"diff: {changed} changed lines in {args.files} files; {found} findings")
    print(f"review overhead, first run in a fresh process: {first:.3f} s")
    print(f"review overhead, cold scan cache, median of {args.runs}: {statistics.median(cold):.3f} s")
    print(f"review overhead, warm scan cache, median of {args.runs}: {statistics.median(warm):.3f} s")
    print(f"floor: git diff, median of {args.runs}: {statistics.median(floor):.3f} s")
    for what, (wall, cpu) in processes.items():
        print(f"fresh process `aiagent --headless --mode=code-review`, {what}, median of "
              f"{args.runs}: {wall:.3f} s wall, {cpu:.3f} CPU-s")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("target (NFR-4 share): <= 2 s")


if __name__ == "__main__":
    main()
