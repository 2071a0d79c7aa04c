"""How long a hosted engine's turn takes on the page, side by side with our own engine.

A real ``aiagent serve`` against FakeLLM, with ``aiagent acp`` configured as the engine
``inner``. For each run: a new session, one message, the time from the POST to the first
``text`` event and to ``done``. A hosted session's first turn includes starting the engine
(its process, the ``acp`` import, initialize, session/new); a second turn reuses it.
Prints the median of ``--runs`` runs.

    python bench/bench_engines.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from aiagent.testing import FakeLLM, Turn

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
URL = re.compile(r"(http://[^/\s]+)/#token=(\S+)")


def timed_turn(client: httpx.Client, sid: str) -> tuple[float, float]:
    start, first = time.perf_counter(), 0.0
    with client.stream("POST", f"/api/sessions/{sid}/messages", json={"text": "hi"}) as response:
        for line in response.iter_lines():
            if line == "event: text" and not first:
                first = time.perf_counter() - start
            if line == "event: done":
                break
    return first, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as fake:
        root = Path(tmp)
        (root / "proj").mkdir()
        (root / "home/.config/aiagent").mkdir(parents=True)
        (root / "home/.config/aiagent/config.toml").write_text(
            f'[web.engines.inner]\ncommand = "{AIAGENT}"\nargs = ["acp", "--provider", "anthropic"]\n'
            'keep_env = ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"]\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AIAGENT_"))}
        env.update(HOME=str(root / "home"), XDG_CONFIG_HOME=str(root / "home/.config"),
                   XDG_DATA_HOME=str(root / "home/.local/share"), ANTHROPIC_BASE_URL=fake.url,
                   ANTHROPIC_API_KEY="sk-ant-bench-123456")
        proc = subprocess.Popen([AIAGENT, "serve", "--provider", "anthropic"], cwd=root / "proj",
                                env=env, stdout=subprocess.PIPE, text=True)
        try:
            match = URL.search(proc.stdout.readline() if proc.stdout else "")
            assert match, "no URL"
            results: dict[str, list[tuple[float, float]]] = {"aiagent": [], "inner (1st turn)": [],
                                                             "inner (2nd turn)": []}
            with httpx.Client(base_url=match[1], timeout=120,
                              headers={"Authorization": f"Bearer {match[2]}"}) as client:
                for _ in range(runs):
                    fake.push(*[Turn(text="hello there", text_chunks=2)] * 3)
                    own = client.post("/api/sessions", json={}).json()["id"]
                    results["aiagent"].append(timed_turn(client, own))
                    hosted = client.post("/api/sessions", json={"engine": "inner"}).json()["id"]
                    results["inner (1st turn)"].append(timed_turn(client, hosted))
                    results["inner (2nd turn)"].append(timed_turn(client, hosted))
                    client.delete(f"/api/sessions/{hosted}")  # ends the engine
        finally:
            proc.terminate()
            proc.wait(20)
    summary = {name: {"first_text_ms": round(statistics.median(r[0] for r in rows) * 1000),
                      "done_ms": round(statistics.median(r[1] for r in rows) * 1000)}
               for name, rows in results.items()}
    print(json.dumps({"runs": runs, "median": summary}, indent=2))


if __name__ == "__main__":
    main()
