"""Log parsing accuracy on LogHub-2k, and parsing speed and memory, beside Drain3.

    nice -n 10 .venv/bin/python bench/bench_loghub.py /work/corpora/loghub [--speed] [--lines N] [--runs 3]

LOGHUB is a copy of github.com/logpai/loghub (not committed): one folder per system with
``X_2k.log`` and ``X_2k.log_structured.csv`` (the labels: ``EventId``, ``EventTemplate``,
``Content``). For each of the 16 systems it prints grouping accuracy (GA: a line counts
when the group it was put in holds exactly the lines of its true event, as logparser's
evaluator computes it) and parsing accuracy (PA: the line's template, ``<*>`` where a
variable was, equals the labelled template exactly, no normalisation) of:

- ``aiagent``: :func:`aiagent.engines.logs.parse.parse_lines` on the RAW lines, one
  configuration for every system (the header is found by the format detector);
- ``drain3 raw``: Drain3 0.9 with its defaults on the raw lines (what a user gets);
- ``drain3 msg``: Drain3 defaults on the labelled ``Content`` column (headers cut off by
  the benchmark's own per-system format);
- ``drain3 tuned``: Drain3 on ``Content`` with the per-system masks, similarity threshold
  and depth of logparser's Drain benchmark settings (``TUNED`` below).

``--speed`` then generates two logs of ``--lines`` lines (default 1,000,000) in /tmp,
a repetitive one (~97 MB) and a high-cardinality one (~118 MB, a unique word per line),
and runs on each, ``--runs`` times (default 3, interleaved; the median is shown), each
in a fresh process measured by a small launcher (the child's CPU seconds and peak RSS
from ``getrusage(RUSAGE_CHILDREN)``): Drain3 (defaults) over the raw lines, ``aiagent
logs templates`` (header split, mining, the template table) and ``aiagent --headless
--mode=log-analysis -o json`` (no model: the static report). It prints CPU seconds,
Drain3's CPU over each one's (``x drain3``: above 1 is faster), MB and lines per
CPU-second, and peak RSS in MB. Targets: ``x drain3`` >= 1 and RSS <= 64 MB.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import statistics
import string
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

SYSTEMS = ("HDFS", "Hadoop", "Spark", "Zookeeper", "BGL", "HPC", "Thunderbird", "Windows",
           "Linux", "Android", "HealthApp", "Apache", "Proxifier", "OpenSSH", "OpenStack", "Mac")

# logparser's Drain benchmark settings (benchmark/Drain_benchmark.py): masks, st, depth.
TUNED: dict[str, tuple[list[str], float, int]] = {
    "HDFS": ([r"blk_-?\d+", r"(\d+\.){3}\d+(:\d+)?"], 0.5, 4),
    "Hadoop": ([r"(\d+\.){3}\d+"], 0.5, 4),
    "Spark": ([r"(\d+\.){3}\d+", r"\b[KGTM]?B\b", r"([\w-]+\.){2,}[\w-]+"], 0.5, 4),
    "Zookeeper": ([r"(/|)(\d+\.){3}\d+(:\d+)?"], 0.5, 4),
    "BGL": ([r"core\.\d+"], 0.5, 4),
    "HPC": ([r"=\d+"], 0.5, 4),
    "Thunderbird": ([r"(\d+\.){3}\d+"], 0.5, 4),
    "Windows": ([r"0x.*?\s"], 0.7, 5),
    "Linux": ([r"(\d+\.){3}\d+", r"\d{2}:\d{2}:\d{2}"], 0.39, 6),
    "Android": ([r"(/[\w-]+)+", r"([\w-]+\.){2,}[\w-]+",
                 r"\b(\-?\+?\d+)\b|\b0[Xx][a-fA-F\d]+\b|\b[a-fA-F\d]{4,}\b"], 0.2, 6),
    "HealthApp": ([], 0.2, 4),
    "Apache": ([r"(\d+\.){3}\d+"], 0.5, 4),
    "Proxifier": ([r"<\d+\ssec", r"([\w-]+\.)+[\w-]+(:\d+)?", r"\d{2}:\d{2}(:\d{2})*",
                   r"[KGTM]B"], 0.6, 3),
    "OpenSSH": ([r"(\d+\.){3}\d+", r"([\w-]+\.){2,}[\w-]+"], 0.6, 5),
    "OpenStack": ([r"((\d+\.){3}\d+,?)+", r"/.+?\s", r"\d+"], 0.5, 5),
    "Mac": ([r"([\w-]+\.){2,}[\w-]+"], 0.7, 6),
}


def grouping_accuracy(truth: list[str], parsed: list[str]) -> float:
    """logparser's GA: the lines of every parsed group whose lines are exactly the lines
    of one true event, over all lines."""
    true_sizes = Counter(truth)
    groups: dict[str, list[str]] = defaultdict(list)
    for t, p in zip(truth, parsed, strict=True):
        groups[p].append(t)
    right = 0
    for members in groups.values():
        ids = set(members)
        if len(ids) == 1 and true_sizes[members[0]] == len(members):
            right += len(members)
    return right / len(truth)


def parsing_accuracy(truth: list[str], parsed: list[str]) -> float:
    return sum(t == p for t, p in zip(truth, parsed, strict=True)) / len(truth)


def load(root: Path, system: str) -> tuple[list[str], list[dict[str, str]]]:
    folder = root / system
    raw = (folder / f"{system}_2k.log").read_text(encoding="utf-8", errors="replace")
    with (folder / f"{system}_2k.log_structured.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    lines = raw.splitlines()
    if len(lines) != len(rows):
        raise SystemExit(f"{system}: {len(lines)} lines but {len(rows)} labels")
    return lines, rows


def run_aiagent(lines: list[str]) -> tuple[list[str], list[str]]:
    from aiagent.engines.logs.parse import parse_lines

    ids, templates = [], []
    for row in parse_lines(lines):
        ids.append(str(row.template_id))
        templates.append(row.template)
    return ids, templates


def run_drain3(messages: list[str], masks: list[str] | None = None, st: float | None = None,
               depth: int | None = None) -> tuple[list[str], list[str]]:
    from drain3 import TemplateMiner  # type: ignore[import-untyped]
    from drain3.masking import MaskingInstruction  # type: ignore[import-untyped]
    from drain3.template_miner_config import TemplateMinerConfig  # type: ignore[import-untyped]

    config = TemplateMinerConfig()
    if masks is not None:
        config.masking_instructions = [MaskingInstruction(rx, "*") for rx in masks]
    if st is not None:
        config.drain_sim_th = st
    if depth is not None:
        config.drain_depth = depth
    miner = TemplateMiner(config=config)
    ids = [miner.add_log_message(m)["cluster_id"] for m in messages]
    clusters = miner.drain.id_to_cluster
    return [str(i) for i in ids], [clusters[i].get_template() for i in ids]


def accuracy(root: Path, only: list[str]) -> None:
    head = f"{'system':<12}" + "".join(f"{n:>16}" for n in
                                       ("aiagent raw", "drain3 raw", "drain3 msg", "drain3 tuned"))
    print("GA / PA per system (LogHub-2k, 2000 lines each)")
    print(head)
    sums: list[list[float]] = [[0.0, 0.0] for _ in range(4)]
    for system in only:
        lines, rows = load(root, system)
        truth = [r["EventId"] for r in rows]
        truth_t = [r["EventTemplate"] for r in rows]
        content = [r["Content"] for r in rows]
        masks, st, depth = TUNED[system]
        runs = [run_aiagent(lines), run_drain3(lines), run_drain3(content),
                run_drain3(content, masks, st, depth)]
        cells = []
        for k, (ids, templates) in enumerate(runs):
            ga, pa = grouping_accuracy(truth, ids), parsing_accuracy(truth_t, templates)
            sums[k][0] += ga
            sums[k][1] += pa
            cells.append(f"{ga:.3f} / {pa:.3f}")
        print(f"{system:<12}" + "".join(f"{c:>16}" for c in cells), flush=True)
    n = len(only)
    print(f"{'average':<12}" + "".join(f"{g / n:.3f} / {p / n:.3f}".rjust(16) for g, p in sums))


# ---- speed ---------------------------------------------------------------------------

def generate(path: Path, lines: int, unique: bool) -> None:
    """A log of ``lines`` lines in a few log4j-style shapes; ``unique``: each line also
    carries a random word (letters only, so no digit masking can fold it away)."""
    rnd = random.Random(7)
    users = ["alice", "bob", "carol", "dave"]
    shapes = [
        "INFO [http-{k}] c.s.OrderController - POST /orders/{n} took {k}ms user={u}",
        "WARN [pool-{k}] c.s.Cache - cache miss for key user:{n} after {k} tries",
        "ERROR [pool-{k}] c.s.Repo - save failed for order {n}: connection reset",
        "INFO [main] c.s.Scheduler - job resize finished in {k}ms id={n}",
        "DEBUG [io-{k}] c.s.Client - sent {n} bytes to 10.0.{k}.7:8080",
    ]
    letters = string.ascii_lowercase
    t = 1714564800.0
    with path.open("w", encoding="utf-8") as out:
        for start in range(0, lines, 10000):
            chunk = []
            for _ in range(min(10000, lines - start)):
                t += rnd.random() * 0.01
                stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + \
                    f",{int(t * 1000) % 1000:03d}"
                text = rnd.choice(shapes).format(k=rnd.randrange(64), n=rnd.randrange(1 << 30),
                                                 u=rnd.choice(users))
                if unique:
                    text += " session " + "".join(rnd.choice(letters) for _ in range(12))
                chunk.append(f"{stamp} {text}\n")
            out.write("".join(chunk))


DRAIN3 = r"""
import sys
from drain3 import TemplateMiner
miner = TemplateMiner()
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        miner.add_log_message(line.rstrip("\n"))
"""

# The launcher: runs one command as its only child and prints that child's CPU seconds
# (user + system) and peak RSS (ru_maxrss of RUSAGE_CHILDREN: the child's own, not the
# launcher's, whatever the parent's size), so that no other process counts.
LAUNCHER = ("import resource,subprocess,sys;"
            "p=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
            "r=resource.getrusage(resource.RUSAGE_CHILDREN);"
            "print(p.returncode,r.ru_utime+r.ru_stime,r.ru_maxrss)")


def measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of ``cmd``, run by :data:`LAUNCHER`."""
    out = subprocess.run([sys.executable, "-c", LAUNCHER, *cmd], capture_output=True,
                         text=True, check=True, env=env).stdout
    code, cpu, rss_kb = out.split()
    if code not in ("0", "1"):
        raise SystemExit(f"{' '.join(cmd[:4])}: exited {code}")
    return float(cpu), int(rss_kb) / 1024


def commands(path: Path) -> dict[str, list[str]]:
    """What is timed: Drain3 (defaults) over the raw lines, and the two aiagent paths,
    the real commands each in a fresh process."""
    aiagent = [sys.executable, "-m", "aiagent"]
    return {
        "drain3": [sys.executable, "-c", DRAIN3, str(path)],
        "aiagent logs templates": [*aiagent, "logs", "templates", str(path)],
        "aiagent --mode=log-analysis": [*aiagent, "--headless", "--mode=log-analysis",
                                        "-o", "json", "--file", str(path)],
    }


def speed(lines: int, runs: int) -> None:
    print(f"\nspeed on generated {lines:,}-line logs: the median of {runs} runs, each in a "
          "fresh process (CPU = user+sys of that process; RSS = its peak)")
    print(f"{'log':<27}{'what':<30}{'CPU s':>7}{'x drain3':>9}{'MB/CPU-s':>10}"
          f"{'lines/CPU-s':>13}{'RSS MB':>8}")
    env = {**os.environ, "OLLAMA_HOST": "127.0.0.1:9", "NO_COLOR": "1"}  # no model: static
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        env.pop(var, None)
    for kind, unique in (("repetitive", False), ("high-cardinality", True)):
        path = Path(f"/tmp/aiagent-loghub-{kind}-{lines}.log")
        if not path.exists():
            generate(path, lines, unique)
        size = path.stat().st_size / 1e6
        todo = commands(path)
        got: dict[str, list[tuple[float, float]]] = {who: [] for who in todo}
        for _ in range(runs):  # interleaved: a busy spell of the machine hits all alike
            for who, cmd in todo.items():
                got[who].append(measured(cmd, env))
        drain = statistics.median(cpu for cpu, _ in got["drain3"])
        for who, results in got.items():
            cpu = statistics.median(c for c, _ in results)
            rss = statistics.median(r for _, r in results)
            print(f"{kind + f' ({size:.0f} MB)':<27}{who:<30}{cpu:>7.2f}{drain / cpu:>9.2f}"
                  f"{size / cpu:>10.1f}{lines / cpu:>13,.0f}{rss:>8.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loghub", type=Path, help="a copy of github.com/logpai/loghub")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--speed", action="store_true", help="also the 1M-line speed runs")
    parser.add_argument("--speed-only", action="store_true")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3, help="speed runs (the median)")
    args = parser.parse_args()
    if not (args.loghub / "HDFS" / "HDFS_2k.log").exists():
        raise SystemExit(f"{args.loghub}: not a LogHub copy (no HDFS/HDFS_2k.log)")
    if not args.speed_only:
        accuracy(args.loghub, [s for s in args.systems.split(",") if s])
    if args.speed or args.speed_only:
        speed(args.lines, args.runs)


if __name__ == "__main__":
    re.purge()
    main()
