"""Log analysis throughput and memory on a generated mixed log, beside ``grep -c ERROR``.

    .venv/bin/python bench/bench_logs.py [--size-mb 1024] [--runs 3] [--keep]

Writes a mixed log of ``--size-mb`` MiB to /tmp (plain Java-style lines with stack
traces, JSON lines, logfmt, an nginx access log, syslog; ~3% errors, an incident in the
middle), then runs, ``--runs`` times each, the real command
``aiagent --headless --mode=log-analysis --file LOG -o json`` (no model: the static part,
templates mined with drain3) and ``grep -c ERROR LOG`` as the floor. Prints the median MB/s
of each (wall clock, and per CPU-second: the machine may be shared) and the analysis's
peak RSS growth over the same command on a 1-line log
(targets: >= 50 MB/s, growth <= 100 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
TRACE = ("{ts} ERROR [pool-{t}] c.s.orders.OrderRepository - save failed for order {n}\n"
         "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available\n"
         "\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:197)\n"
         "\tat com.shop.orders.OrderRepository.save(OrderRepository.java:{t})\n"
         "\t... 12 more\n")
USERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
PATHS = ["/api/items/{n}", "/api/users/{u}", "/static/app.{t}.js", "/health", "/api/orders/{n}"]


def lines(rnd: random.Random, t: float, incident: bool) -> str:
    ts = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + f",{int(t * 1000) % 1000:03d}"
    iso = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
    n, k, u = rnd.randrange(1 << 30), rnd.randrange(64), rnd.choice(USERS)
    kind = rnd.random()
    if incident and kind < 0.05:
        return TRACE.format(ts=ts, t=k, n=n)
    if kind < 0.35:
        return f"{ts} INFO  [http-{k}] c.s.orders.OrderController - POST /orders/{n} took {k}ms user={u}\n"
    if kind < 0.55:
        lvl = "error" if kind < 0.36 else "info"
        return json.dumps({"ts": iso, "level": lvl, "msg": "cache lookup", "key": f"user:{n}",
                           "trace_id": f"{n:08x}{k:04x}", "hit": kind > 0.45}) + "\n"
    if kind < 0.75:
        return f'ts={iso} level=info msg="job done" job=resize id={n} took={k}ms user={u}\n'
    if kind < 0.95:
        status = 502 if incident and kind < 0.77 else 200
        path = rnd.choice(PATHS).format(n=n, u=u, t=k)
        stamp = time.strftime("%d/%b/%Y:%H:%M:%S", time.gmtime(t))
        return (f'10.{k}.{n % 255}.{n % 7} - - [{stamp} +0000] "GET {path} HTTP/1.1" {status} '
                f'{n % 9000} "-" "Mozilla/5.0"\n')
    return (f"{time.strftime('%b %e %H:%M:%S', time.gmtime(t))} node-{k % 4} worker[{n % 9999}]: "
            f"WARN batch {n} slow: {k * 31}ms\n")


def generate(path: Path, size: int) -> None:
    rnd = random.Random(42)
    t, written = 1714564800.0, 0
    with path.open("w", encoding="utf-8") as out:
        while written < size:
            chunk = []
            for _ in range(20000):
                t += rnd.random() * 0.01
                chunk.append(lines(rnd, t, size * 0.5 <= written <= size * 0.55))
            text = "".join(chunk)
            out.write(text)
            written += len(text)


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), peak RSS in MB of ``cmd`` (measured by a
    small waiter process, so that no other child counts), and its stdout."""
    waiter = ("import resource,subprocess,sys,time;t=time.perf_counter();"
              "p=subprocess.run(sys.argv[1:],capture_output=True);"
              "r=resource.getrusage(resource.RUSAGE_CHILDREN);"
              "print(time.perf_counter()-t,r.ru_utime+r.ru_stime,r.ru_maxrss,"
              "p.returncode,file=sys.stderr);sys.stdout.buffer.write(p.stdout)")
    proc = subprocess.run([sys.executable, "-c", waiter, *cmd], capture_output=True, env=env,
                          text=True, check=True)
    seconds, cpu, rss_kb, code = proc.stderr.split()[-4:]
    if code not in ("0", "1"):
        raise SystemExit(f"{cmd[0]} exited {code}")
    return float(seconds), float(cpu), int(rss_kb) / 1024, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated log")
    args = parser.parse_args()
    log, tiny = Path(f"/tmp/aiagent-bench-{args.size_mb}mb.log"), Path("/tmp/aiagent-bench-tiny.log")
    if not log.exists() or log.stat().st_size < args.size_mb << 20:
        print(f"generating {log} ({args.size_mb} MiB)…", file=sys.stderr)
        generate(log, args.size_mb << 20)
    tiny.write_text("2024-05-01T12:00:00Z INFO started\n")
    env = {**os.environ, "OLLAMA_HOST": "127.0.0.1:9", "NO_COLOR": "1"}
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        env.pop(var, None)
    analyse = [AIAGENT, "--headless", "--mode=log-analysis", "-o", "json", "--file"]
    size_mb = log.stat().st_size / 1e6
    base = statistics.median(timed([*analyse, str(tiny)], env)[2] for _ in range(args.runs))
    ours, ours_cpu, peaks, grep, grep_cpu = [], [], [], [], []
    for _ in range(args.runs):
        seconds, cpu, peak, out = timed([*analyse, str(log)], env)
        ours.append(size_mb / seconds)
        ours_cpu.append(size_mb / cpu)
        peaks.append(peak)
        g_seconds, g_cpu, _, _ = timed(["grep", "-c", "ERROR", str(log)], env)
        grep.append(size_mb / g_seconds)
        grep_cpu.append(size_mb / max(g_cpu, 1e-3))
    report = json.loads(out)["static"]
    print(f"log: {size_mb:.0f} MB, {report['input']['lines']:,} lines, "
          f"{len(report['clusters'])} error clusters shown, severity {report['severity']}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'what':<34}{'MB/s (wall)':>12}{'MB/CPU-s':>10}")
    print(f"{'aiagent log-analysis (static)':<34}{statistics.median(ours):>12.1f}"
          f"{statistics.median(ours_cpu):>10.1f}")
    print(f"{'grep -c ERROR (floor)':<34}{statistics.median(grep):>12.1f}"
          f"{statistics.median(grep_cpu):>10.1f}")
    print(f"peak RSS: {statistics.median(peaks):.0f} MB; on a 1-line log: {base:.0f} MB; "
          f"growth: {statistics.median(peaks) - base:.0f} MB (target <= 100)")
    if not args.keep:
        log.unlink()


if __name__ == "__main__":
    main()
