"""Real-looking logs made for the tests: a deploy that breaks a database connection pool,
an OOM loop, a mix of formats with stack traces."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

START = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
JAVA_TRACE = """\
java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.
\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)
\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:197)
\tat com.shop.orders.OrderRepository.save(OrderRepository.java:{line})
Caused by: org.postgresql.util.PSQLException: FATAL: remaining connection slots are reserved
\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:613)
\t... 12 more"""


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def db_pool_deploy(minutes: int = 30, seed: int = 7) -> str:
    """An order service: healthy, a deploy at minute 15 shrinks the pool, then timeouts."""
    rnd = random.Random(seed)
    out: list[str] = []
    t = START
    deploy = START + timedelta(minutes=minutes // 2)
    deployed = False
    while t < START + timedelta(minutes=minutes):
        t += timedelta(milliseconds=rnd.randint(50, 400))
        if not deployed and t >= deploy:
            out.append(f"{_ts(t)} INFO  [main] c.s.Deployer - Deploying orders-service version 2.4.1 (pool.maximumSize=2)")
            out.append(f"{_ts(t)} INFO  [main] c.s.orders.Application - Started Application in 4.2 seconds")
            deployed = True
            continue
        order = rnd.randint(10000, 99999)
        out.append(f"{_ts(t)} INFO  [http-nio-8080-exec-{rnd.randint(1, 20)}] c.s.orders.OrderController - "
                   f"POST /orders/{order} took {rnd.randint(5, 90)}ms")
        if deployed and rnd.random() < 0.25:
            out.append(f"{_ts(t)} ERROR [http-nio-8080-exec-{rnd.randint(1, 20)}] c.s.orders.OrderController - "
                       f"Request failed for order {order}")
            out.append(JAVA_TRACE.format(line=rnd.choice([88, 91])))
        elif rnd.random() < 0.01:
            out.append(f"{_ts(t)} WARN  [scheduler-1] c.s.cache.CacheWarmer - cache warm-up slow: {rnd.randint(900, 3000)}ms")
    return "\n".join(out) + "\n"


def oom_loop(restarts: int = 6) -> str:
    """A worker that grows until the kernel OOM killer ends it, restarted each time (syslog)."""
    out: list[str] = []
    t = START
    for n in range(restarts):
        pid = 4000 + n * 17
        out.append(f"{t:%b %e %H:%M:%S} node-3 systemd[1]: Started worker.service - Batch worker.")
        for step in range(40):
            t += timedelta(seconds=3)
            out.append(f"{t:%b %e %H:%M:%S} node-3 worker[{pid}]: processed batch {n * 40 + step} "
                       f"rss={200 + step * 45}MB")
        t += timedelta(seconds=1)
        out.append(f"{t:%b %e %H:%M:%S} node-3 kernel: Out of memory: Killed process {pid} (worker) "
                   f"total-vm:{4_100_000 + n}kB, anon-rss:{3_900_000 + n}kB")
        out.append(f"{t:%b %e %H:%M:%S} node-3 systemd[1]: worker.service: Main process exited, "
                   "code=killed, status=9/KILL")
        out.append(f"{t:%b %e %H:%M:%S} node-3 systemd[1]: worker.service: Failed with result 'oom-kill'.")
        t += timedelta(seconds=5)
    return "\n".join(out) + "\n"


def mixed_formats(seed: int = 3) -> str:
    """JSON lines, logfmt, an nginx access log, a Python traceback and a Go panic."""
    rnd = random.Random(seed)
    out: list[str] = []
    t = START
    for i in range(300):
        t += timedelta(seconds=1)
        iso = t.strftime("%Y-%m-%dT%H:%M:%SZ")
        out.append(json.dumps({"ts": iso, "level": "info", "msg": "cache hit", "key": f"user:{i}"}))
        out.append(f'ts={iso} level=info msg="job done" job=resize id={rnd.randint(1, 9999)}')
        status = 502 if 200 <= i < 230 else 200
        out.append(f'10.1.{i % 255}.7 - - [{t:%d/%b/%Y:%H:%M:%S} +0000] "GET /api/items/{i}?q=1 HTTP/1.1" '
                   f'{status} {rnd.randint(100, 900)} "-" "curl/8.5"')
        if i == 120:
            out += ["Traceback (most recent call last):",
                    '  File "/srv/app/handlers.py", line 42, in handle',
                    "    total = price / quantity",
                    "ZeroDivisionError: division by zero"]
        if i == 250:
            out += ["panic: runtime error: index out of range [5] with length 3", "",
                    "goroutine 1 [running]:", "main.process(...)",
                    "\t/src/worker/main.go:27 +0x1d", "main.main()",
                    "\t/src/worker/main.go:12 +0x25", "exit status 2"]
        if i % 50 == 0:
            out.append(json.dumps({"ts": iso, "level": "error", "msg": "upstream timeout",
                                   "upstream": "payments", "after_ms": 5000 + i}))
    return "\n".join(out) + "\n"
