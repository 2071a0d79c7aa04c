"""Repositories per minute and peak memory of `aiagent batch security-audit` on generated
repositories: the local engine, a local Ray cluster, and a plain shell loop of single audits.

    python bench/bench_batch.py --repos 50 [--ray-python /path/to/python-with-ray] [--skip-ray]

Peak memory is the largest summed RSS of the measured command's whole process tree, sampled
every 0.1 s. Each repository: 20 Python files (one with an injectable command and a key).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

SRC = str(Path(__file__).resolve().parents[1] / "src")
VULNERABLE = 'import os\n\ndef run(x):\n    os.system("ls " + x)\n\nKEY = "AKIAIOSFODNN7EXAMPLE"\n'


def generate(root: Path, count: int) -> Path:
    lines = []
    for n in range(count):
        repo = root / f"repo{n:03d}"
        (repo / "pkg").mkdir(parents=True)
        for m in range(20):
            body = VULNERABLE if m == 0 else f"def f{m}(a):\n    return a * {m}\n" * 20
            (repo / "pkg" / f"mod{m}.py").write_text(body)
        lines.append(str(repo))
    listed = root / "repos.txt"
    listed.write_text("\n".join(lines) + "\n")
    return listed


def measure(argv: list[str] | str, shell: bool = False) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": SRC, "CI": "true"}
    began = time.monotonic()
    proc = subprocess.Popen(argv, shell=shell, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.1)
    return time.monotonic() - began, peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=50)
    parser.add_argument("--ray-python", default=sys.executable)
    parser.add_argument("--skip-ray", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        listed = generate(root, args.repos)
        batch = ["batch", "security-audit", "--repos", str(listed)]
        rows = [("local engine", measure([sys.executable, "-m", "aiagent", *batch, "--out", str(root / "l")]))]
        if not args.skip_ray:
            rows.append(("ray engine (local, all cores)", measure(
                [args.ray_python, "-m", "aiagent", *batch, "--out", str(root / "r"), "--engine", "ray"])))
        loop = (f'for r in $(cat {listed}); do "{sys.executable}" -m aiagent security-audit "$r" '
                f'-o json --out "$r.json" --no-cache >/dev/null; done')
        rows.append(("shell loop of single audits", measure(loop, shell=True)))
    print(f"{args.repos} repositories, {os.cpu_count()} CPUs")
    print(f"{'runner':34} {'seconds':>8} {'repos/min':>10} {'peak MB':>8}")
    for name, (seconds, peak) in rows:
        print(f"{name:34} {seconds:8.1f} {args.repos / seconds * 60:10.1f} {peak:8.0f}")


if __name__ == "__main__":
    main()
