"""The static wiki (no key) of a real ~50,000-line Python package: wall time and peak RSS.

    .venv/bin/python bench/bench_wiki.py [--package hypothesis] [--runs 3] [--format mkdocs]

The project is a copy of a package from this interpreter's site-packages (real code we did
not write), made a git repository. Each run is the real ``aiagent wiki`` command in a fresh
process (security audit included, its cache off by a fresh XDG cache folder); peak RSS is
the child's ``ru_maxrss``. Targets (issue 19): <= 30 s and <= 500 MB. Medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def make_project(root: Path, package: str) -> tuple[int, int]:
    site = Path(sysconfig.get_paths()["purelib"]) / package
    if not site.is_dir():
        sys.exit(f"bench_wiki: {package} is not installed in {site.parent}")
    shutil.copytree(site, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    files = list(root.rglob("*.py"))
    return len(files), sum(f.read_bytes().count(b"\n") for f in files)


def one_run(project: Path, out: Path, fmt: str, scratch: Path) -> tuple[float, float]:
    env = {**os.environ, "XDG_CACHE_HOME": str(scratch / f"cache-{time.monotonic_ns()}")}
    started = time.perf_counter()
    proc = subprocess.run([AIAGENT, "wiki", str(project), "--output", str(out), "--format", fmt],
                          capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"bench_wiki: aiagent wiki failed: {proc.stderr.strip()}")
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", default="hypothesis")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--format", default="markdown", choices=["markdown", "mkdocs"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        project = scratch / "project"
        files, lines = make_project(project, args.package)
        walls, rss = [], 0.0
        for _ in range(args.runs):
            wall, peak = one_run(project, scratch / "wiki", args.format, scratch)
            walls.append(wall)
            rss = max(rss, peak)
        pages = len(list((scratch / "wiki").rglob("*.md")))
    print(f"project: {args.package} from site-packages, {files} files, {lines} lines")
    print(f"aiagent wiki ({args.format}): median {statistics.median(walls):.1f} s over {args.runs} runs "
          f"(target <= 30 s), peak RSS {rss:.0f} MB (target <= 500 MB), {pages} pages")


if __name__ == "__main__":
    main()
