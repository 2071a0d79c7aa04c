"""Skill load times (NFR-11: Starlark < 50 ms per skill; NFR-12: external process < 200 ms).

Prints the median over several rounds of: discovery of the built-in and example skills;
starting the shared Starlark worker (once per run); evaluating one Starlark skill in a warm
worker; starting and initialising a process skill; importing a Python plugin skill.
Run: .venv/bin/python bench/bench_skills.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from aiagent.agent.skills.host import HostServices
from aiagent.agent.skills.loader import Source, builtin_dir, discover
from aiagent.agent.skills.permissions import MemoryGrantStore, PermissionGate
from aiagent.agent.skills.runtime import SkillRuntime

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "skills"


def runtime(project: Path) -> SkillRuntime:
    found = discover([Source("builtin", builtin_dir()), Source("project", EXAMPLES)])
    gate = PermissionGate(MemoryGrantStore(), str(project), frozenset({"*"}))
    return SkillRuntime(found, HostServices(root=project), gate)


async def one_round(project: Path) -> dict[str, float]:
    times: dict[str, float] = {}
    start = time.perf_counter()
    rt = runtime(project)
    times["discovery (all sources)"] = time.perf_counter() - start
    for label, name in (("starlark: first skill + worker start", "word-tools"),
                        ("starlark: one more skill (warm worker)", "response-footer"),
                        ("process skill: start + initialize", "line-stats"),
                        ("python plugin skill: import + register", "guardrails")):
        start = time.perf_counter()
        await rt.activate(name)
        times[label] = time.perf_counter() - start
    start = time.perf_counter()
    await rt.call("word-tools", "tool", "count_words", {"path": "a.txt"})
    times["starlark tool call (one host read)"] = time.perf_counter() - start
    await rt.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "a.txt").write_text("one two three\n")
        results = [asyncio.run(one_round(project)) for _ in range(rounds)]
    print(f"skill load times, median of {rounds} rounds")
    for key in results[0]:
        print(f"  {key:<42} {statistics.median(r[key] for r in results) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
