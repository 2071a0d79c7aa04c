"""``aiagent serve``: ready time, first SSE byte, 20 concurrent sessions, idle memory.

    .venv/bin/python bench/bench_serve.py [--runs 5] [--sessions 20]

Against FakeLLM on loopback, the real ``aiagent serve`` in a subprocess (isolated HOME):

- ready: spawn → the URL line printed, → ``GET /healthz`` answered (target ≤ 500 ms),
  and → the first ``GET /api/info`` answered (the API and the agent's Application are
  built after the URL is out), median of ``--runs`` starts;
- first byte: ``POST …/messages`` → the first SSE byte (the ``turn-start`` event, sent
  before the model is asked; target ≤ 50 ms), and → the first ``text`` event (adds the
  agent's own set-up on a session's first turn and the model's latency), medians;
- concurrency: ``--sessions`` sessions streaming at once (20 text pieces 10 ms apart each):
  errors, turn time p50/p95, and p95 of the delay between an event's arrival and the
  model's scripted pace (inter-event gap minus 10 ms);
- memory: the server's RSS when idle after start, and idle after the concurrent turns
  (target ≤ 120 MB idle).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psutil

from aiagent.testing import FakeLLM, Turn

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
URL = re.compile(r"(http://[^/\s]+)/#token=(\S+)")


def environment(root: Path, fake: FakeLLM) -> dict[str, str]:
    home = root / "home"
    (home / ".config").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "cache"),
               ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="sk-ant-bench-123456")
    return env


def start(root: Path, env: dict[str, str]
          ) -> tuple[subprocess.Popen[str], str, str, float, float, float, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([AIAGENT, "serve", "--provider", "anthropic"], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    match = URL.search(proc.stdout.readline())
    if match is None:
        proc.kill()
        raise SystemExit("aiagent serve printed no URL")
    printed = time.perf_counter() - t0
    cpu = psutil.Process(proc.pid).cpu_times()  # the work done before ready (load-independent)
    base, token = match[1], match[2]
    httpx.get(f"{base}/healthz").raise_for_status()
    healthy = time.perf_counter() - t0
    httpx.get(f"{base}/api/info", headers={"Authorization": f"Bearer {token}"}).raise_for_status()
    return proc, base, token, cpu.user + cpu.system, printed, healthy, time.perf_counter() - t0


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def first_bytes(client: httpx.Client) -> tuple[float, float]:
    sid = client.post("/api/sessions", json={}).json()["id"]
    t0 = time.perf_counter()
    first = text = 0.0
    with client.stream("POST", f"/api/sessions/{sid}/messages", json={"text": "hi"}) as r:
        for line in r.iter_lines():
            now = time.perf_counter() - t0
            first = first or now
            if line == "event: text" and not text:
                text = now
    return first, text


def one_session(client: httpx.Client, gaps: list[float], turns: list[float],
                errors: list[str]) -> None:
    try:
        sid = client.post("/api/sessions", json={}).json()["id"]
        t0 = last = time.perf_counter()
        with client.stream("POST", f"/api/sessions/{sid}/messages", json={"text": "go"}) as r:
            r.raise_for_status()
            seen_text = False
            for line in r.iter_lines():
                if line == "event: text":
                    now = time.perf_counter()
                    if seen_text:
                        gaps.append(max(0.0, now - last - 0.010))
                    seen_text, last = True, now
                elif line == "event: error":
                    errors.append("error event")
        turns.append(time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - counted
        errors.append(repr(exc))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else (values or [0.0])[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as fake:
        root = Path(tmp)
        env = environment(root, fake)
        cpus, printed, healthy, answered = [], [], [], []
        for _ in range(args.runs):
            proc, *_, c, a, h, b = start(root, env)
            cpus.append(c)
            printed.append(a)
            healthy.append(h)
            answered.append(b)
            stop(proc)
        proc, base, token, *_ = start(root, env)
        time.sleep(1.0)  # idle: the API was built in the background after start
        rss_idle = psutil.Process(proc.pid).memory_info().rss
        client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"},
                              timeout=60, limits=httpx.Limits(max_connections=100))
        firsts, texts = [], []
        for _ in range(args.runs):
            fake.push(Turn(text="hello there"))
            a, b = first_bytes(client)
            firsts.append(a)
            texts.append(b)
        fake.push(*[Turn(text="x" * 40, text_chunks=20, chunk_delay=0.010)
                    for _ in range(args.sessions)])
        gaps: list[float] = []
        turns: list[float] = []
        errors: list[str] = []
        threads = [threading.Thread(target=one_session, args=(client, gaps, turns, errors))
                   for _ in range(args.sessions)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        time.sleep(1.0)
        rss_after = psutil.Process(proc.pid).memory_info().rss
        client.close()
        stop(proc)
    print(f"aiagent serve, median of {args.runs} (FakeLLM on loopback, 2-core machine)")
    print(f"  ready: URL printed {ms(statistics.median(printed))}, /healthz answered "
          f"{ms(statistics.median(healthy))}   (target <= 500 ms); first API answer (the "
          f"agent's set-up, built after the URL is out) {ms(statistics.median(answered))}")
    print(f"  CPU time of the server until its URL line {ms(statistics.median(cpus))} "
          f"(the same work on an idle machine; load average now {os.getloadavg()[0]:.1f})")
    print(f"  POST -> first SSE byte {ms(statistics.median(firsts))} (target <= 50 ms); "
          f"-> first text {ms(statistics.median(texts))} (agent set-up + model)")
    print(f"  {args.sessions} concurrent sessions: {len(errors)} errors, wall {ms(wall)}, "
          f"turn p50 {ms(statistics.median(turns))} p95 {ms(p95(turns))}, "
          f"event delay p95 {ms(p95(gaps))}")
    print(f"  RSS idle after start {rss_idle / 2**20:.0f} MB, idle after the sessions "
          f"{rss_after / 2**20:.0f} MB   (target <= 120 MB)")
    if errors:
        print("  errors:", errors[:3])


if __name__ == "__main__":
    main()
