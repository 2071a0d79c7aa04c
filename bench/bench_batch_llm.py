"""Model calls in `aiagent batch wiki --llm` under the batch's one limit: FakeLLM on loopback
holds each request LATENCY seconds; for each engine and --llm-concurrency the wall time, the
calls, the most calls the server saw at once, and the floor ``calls x LATENCY / concurrency``.

    python bench/bench_batch_llm.py --repos 12 --latency 0.5 [--ray-python PY] [--skip-ray]

Each repository is one small package (one module): a wiki with a model makes a few calls.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from aiagent.testing import FakeLLM, Turn  # noqa: E402


class Held:
    def __init__(self, latency: float) -> None:
        self.latency, self.now, self.peak, self.lock = latency, 0, 0, threading.Lock()

    def __call__(self, body: dict) -> Turn:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(self.latency)
        with self.lock:
            self.now -= 1
        prompt = json.dumps(body.get("messages", []))
        if "Summarise the module below" in prompt:
            answer = {"purpose": "A module.", "summary": "It adds.", "key_points": ["Small."]}
        else:
            answer = {"architecture": "One package.", "data_flow": "In, out.", "key_abstractions": [],
                      "design_patterns": [], "suggestions": []}
        return Turn(text=json.dumps(answer), usage=(1000, 100))


def generate(root: Path, count: int) -> Path:
    lines = []
    for n in range(count):
        pkg = root / f"repo{n:03d}" / "pkg"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text('"""A package."""\n')
        (pkg / "core.py").write_text(f"def add{n}(a, b):\n    return a + b\n")
        lines.append(str(pkg.parent))
    (root / "repos.txt").write_text("\n".join(lines) + "\n")
    return root / "repos.txt"


def run(python: str, listed: Path, out: Path, engine: str, concurrency: int, latency: float,
        workers: int) -> tuple[float, dict, int]:
    held = Held(latency)
    with FakeLLM(responder=held) as fake:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "CI": "true",
               "OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-bench"}
        began = time.monotonic()
        subprocess.run([python, "-m", "aiagent", "batch", "wiki", "--repos", str(listed), "--out",
                        str(out), "--engine", engine, "--workers", str(workers), "--llm",
                        "--provider", "openai", "--model", "gpt-4o", "--llm-concurrency",
                        str(concurrency)], env=env, capture_output=True, check=False)
        seconds = time.monotonic() - began
    summary = json.loads((out / "summary.json").read_text())
    return seconds, summary["llm"], held.peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=12)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--ray-python", default=sys.executable)
    parser.add_argument("--skip-ray", action="store_true")
    args = parser.parse_args()
    engines = [("local", sys.executable)] + ([] if args.skip_ray else [("ray", args.ray_python)])
    print(f"{args.repos} repositories, {args.workers} workers, latency {args.latency}s a call")
    print(f"{'engine':7} {'limit':>5} {'seconds':>8} {'calls':>6} {'peak seen':>9} {'floor s':>8} {'cost $':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        listed = generate(Path(tmp), args.repos)
        for engine, python in engines:
            for limit in (1, 2, 4):
                out = Path(tmp) / f"{engine}-{limit}"
                seconds, llm, peak = run(python, listed, out, engine, limit, args.latency, args.workers)
                floor = llm["calls"] * args.latency / limit
                print(f"{engine:7} {limit:5} {seconds:8.1f} {llm['calls']:6} {peak:9} {floor:8.1f} {llm['cost']:8.4f}")


if __name__ == "__main__":
    main()
