"""Skill distribution speed: ``aiagent skill list`` with 200 installed skills and
``aiagent skill search`` on a 2,000-skill registry index.

    .venv/bin/python bench/bench_skill_dist.py [--runs 7]

Builds, in a temporary folder, 200 installed skills in the user's skills folder (SKILL.yaml
and SKILL.md, half each) and a git registry whose index.yaml lists 2,000 skills. Times the
real command as a user runs it (a new ``aiagent`` process each run, start-up included) and
the in-process part alone, and prints the median of the runs next to the targets
(list <= 300 ms, search <= 200 ms). The registry is fetched once before timing (as after
the first use; the cache then lives [skills] registry_ttl). For comparison the same search
is timed with ``grep -i`` over index.yaml, the floor for a text search.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def build(base: Path) -> dict[str, str]:
    home = base / "home"
    skills = home / ".config" / "aiagent" / "skills"
    for i in range(200):
        folder = skills / f"skill-{i:03d}"
        folder.mkdir(parents=True)
        if i % 2:
            (folder / "SKILL.md").write_text(f"---\nname: skill-{i:03d}\ndescription: Skill number {i}.\n---\nDo {i}.\n")
        else:
            (folder / "SKILL.yaml").write_text(yaml.safe_dump({
                "name": f"skill-{i:03d}", "version": "1.0.0", "description": f"Skill number {i}",
                "types": ["prompt"], "triggers": {"keywords": [f"k{i}"]}, "prompt": {"system_prompt": "x"}}))
    registry = base / "registry"
    registry.mkdir()
    entries = [{"name": f"tool-{i:04d}", "description": f"Helps with task {i} for kubernetes and docker",
                "latest": "1.0.0", "tags": ["demo", f"t{i % 50}"]} for i in range(2000)]
    (registry / "index.yaml").write_text(yaml.safe_dump({"skills": entries}))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@x"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "index"]):
        subprocess.run(["git", *args], cwd=registry, env=env, check=True)
    (home / ".config" / "aiagent" / "config.toml").write_text(f'[skills]\nregistry_url = "{registry}"\n')
    project = base / "proj"
    (project / ".git").mkdir(parents=True)
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"), "PROJECT": str(project), "REGISTRY": str(registry)}


CPU: dict[str, float] = {}  # command -> median CPU ms (user + sys of the child, os.wait4)


def timed(argv: list[str], env: dict[str, str], runs: int) -> float:
    """Median wall ms of ``argv``; its median CPU ms goes to CPU (fairer on a busy machine)."""
    samples, cpu = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=env["PROJECT"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((usage.ru_utime + usage.ru_stime) * 1000)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{argv}: {err.decode()[-400:]}")
    CPU[" ".join(argv[1:3])] = statistics.median(cpu)
    return statistics.median(samples)


def in_process(env: dict[str, str], runs: int) -> tuple[float, float]:
    from aiagent.agent.skills.distribution.manage import context
    from aiagent.infra.config.settings import Settings

    settings = Settings.load(Path(env["PROJECT"]), env=env)
    ctx = context(settings)
    search, listing = [], []
    for _ in range(runs):
        start = time.perf_counter()
        ctx.registry().search("kubernetes")
        search.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        ctx.installed()
        listing.append((time.perf_counter() - start) * 1000)
    return statistics.median(listing), statistics.median(search)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        env = build(Path(tmp))
        timed([AIAGENT, "skill", "search", "warm-up"], env, 1)  # clone the registry into the cache
        count = subprocess.run([AIAGENT, "skill", "list", "--json"], cwd=env["PROJECT"], env=env,
                               capture_output=True, text=True, check=True).stdout.count('"name"')
        listed = timed([AIAGENT, "skill", "list"], env, runs)
        searched = timed([AIAGENT, "skill", "search", "kubernetes"], env, runs)
        grep = timed(["grep", "-ci", "kubernetes", str(Path(env["REGISTRY"]) / "index.yaml")], env, runs)
        start_only = timed([AIAGENT, "--version"], env, runs)
        list_core, search_core = in_process(env, runs)
    print(f"skills installed: {count} (200 + built-ins); registry index: 2,000 skills; median of {runs} runs")
    print(f"aiagent skill list          {listed:7.1f} ms  (target <= 300)   in-process discovery {list_core:6.1f} ms"
          f"   CPU {CPU['skill list']:6.1f} ms")
    print(f"aiagent skill search        {searched:7.1f} ms  (target <= 200)   in-process search    {search_core:6.1f} ms"
          f"   CPU {CPU['skill search']:6.1f} ms")
    print(f"grep -ci over index.yaml    {grep:7.1f} ms  (peer: plain text search)")
    print(f"aiagent --version           {start_only:7.1f} ms  (process start-up alone)")
    print(f"load average {os.getloadavg()[0]:.1f}; bytecode "
          f"{'not written (PYTHONDONTWRITEBYTECODE)' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'cached'}")


if __name__ == "__main__":
    main()
