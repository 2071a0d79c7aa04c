"""Benchmark the static security scan against bandit, semgrep and detect-secrets.

Usage: python bench/bench_security.py [--lines 100000] [--tree PATH] [--peers-bin DIR]

Builds a mixed-language repository of about --lines lines (Python, JavaScript, TypeScript,
Go, YAML, Dockerfiles; with a sprinkling of real vulnerability patterns), then times, on
the same files: our full static scan (all scanners, no cache), our secrets scanner alone,
and whichever peers are installed (looked up in --peers-bin, default: PATH). --tree adds a
second target (for example a site-packages folder). Prints one line per measurement.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, run_audit

PY = '''import os
import subprocess


def handler_{n}(request, cur):
    """Look up record {n}."""
    ident = request.args.get("id")
    total = 0
    for i in range({n} % 7 + 3):
        total += i * {n}
    cur.execute("SELECT * FROM t WHERE id = %s", (ident,))
    return {{"id": ident, "total": total}}


class Service{n}:
    def __init__(self, client):
        self.client = client
        self.cache = {{}}

    def fetch(self, key):
        if key in self.cache:
            return self.cache[key]
        value = self.client.get(f"/items/{{key}}")
        self.cache[key] = value
        return value
'''
PY_BAD = '''

def unsafe_{n}(request, cur):
    cur.execute("SELECT * FROM t WHERE name = '%s'" % request.args["name"])
    os.system("ping " + request.args["host"])
'''
JS = '''const express = require("express");
const router = express.Router();

function format{n}(items) {{
  return items.map((x) => ({{ id: x.id, label: `${{x.name}} #{n}` }}));
}}

router.get("/items/{n}", async (req, res) => {{
  const rows = await db.query("SELECT * FROM items WHERE id = $1", [req.params.id]);
  res.json(format{n}(rows));
}});

module.exports = router;
'''
JS_BAD = '''
function show{n}(msg) {{
  document.getElementById("m").innerHTML = msg;
  eval(msg);
}}
'''
GO = '''package svc{n}

import (
\t"database/sql"
\t"fmt"
)

// Lookup{n} returns the name for an id.
func Lookup{n}(db *sql.DB, id int) (string, error) {{
\tvar name string
\terr := db.QueryRow("SELECT name FROM t WHERE id = ?", id).Scan(&name)
\tif err != nil {{
\t\treturn "", fmt.Errorf("lookup {n}: %w", err)
\t}}
\treturn name, nil
}}
'''
YAML = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: svc-{n}
spec:
  template:
    spec:
      containers:
        - name: app
          image: registry.local/svc:{n}.0
          securityContext:
            runAsNonRoot: true
'''


def generate(root: Path, target_lines: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    lines, n = 0, 0
    kinds = [("py", PY, PY_BAD), ("js", JS, JS_BAD), ("ts", JS, JS_BAD), ("go", GO, ""),
             ("yaml", YAML, "")]
    while lines < target_lines:
        ext, body, bad = kinds[n % len(kinds)]
        text = body.format(n=n) + (bad.format(n=n) if bad and rng.random() < 0.1 else "")
        if ext == "py" and rng.random() < 0.02:
            text += f'\nAWS_KEY = "AKIA{"".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))}"\n'
        path = root / f"pkg{n % 50}" / f"mod{n}.{ext}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        lines += text.count("\n")
        n += 1
    (root / "Dockerfile").write_text("FROM python:3.12\nCOPY . /app\n")
    return lines


SEMGREP_RULES = """rules:
  - {id: py-sqli, languages: [python], severity: ERROR, message: sqli, pattern: $C.execute("..." % $X)}
  - {id: py-cmdi, languages: [python], severity: ERROR, message: cmdi, pattern: os.system("..." + $X)}
  - {id: py-eval, languages: [python], severity: ERROR, message: eval, pattern: eval($X)}
  - {id: py-pickle, languages: [python], severity: ERROR, message: pickle, pattern: pickle.loads($X)}
  - {id: py-md5, languages: [python], severity: WARNING, message: md5, pattern: hashlib.md5(...)}
  - {id: py-verify, languages: [python], severity: ERROR, message: tls, pattern: "$F(..., verify=False, ...)"}
  - {id: js-eval, languages: [javascript, typescript], severity: ERROR, message: eval, pattern: eval($X)}
  - {id: js-innerhtml, languages: [javascript, typescript], severity: ERROR, message: xss, pattern: $E.innerHTML = $X}
  - {id: js-sqli, languages: [javascript, typescript], severity: ERROR, message: sqli, pattern: "$DB.query(`...${$X}...`)"}
  - {id: js-exec, languages: [javascript, typescript], severity: ERROR, message: cmdi, pattern: exec("..." + $X)}
"""


def timed(label: str, fn) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    detail = fn()
    elapsed = time.perf_counter() - started
    print(f"{label:<38} {elapsed:7.2f} s  {detail}")
    return elapsed


def ours(root: Path, scanners: tuple[str, ...] = ()) -> str:
    result = run_audit(root, SecurityConfig(), AuditOptions(scanners=scanners))
    return f"{result.files_scanned} files, {result.lines_scanned} lines, {len(result.findings)} findings"


def peer(cmd: list[str], cwd: Path) -> str:
    env = {**os.environ, "SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off"}
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    return f"exit {proc.returncode}"


def run_peers(root: Path, bindir: Path | None) -> None:
    def find(name: str) -> str | None:
        if bindir is not None and (bindir / name).exists():
            return str(bindir / name)
        return shutil.which(name)

    rules = Path(tempfile.mkdtemp()) / "semgrep-rules.yaml"
    rules.write_text(SEMGREP_RULES)
    peers = [
        ("bandit", ["-r", "-q", "-f", "json", "-o", os.devnull, "."]),
        ("detect-secrets", ["scan", "--all-files", "."]),
        ("semgrep", ["scan", "--metrics=off", "--disable-version-check", "--config", str(rules),
                     "--json", "-o", os.devnull, "-q", "."]),
    ]
    for name, args in peers:
        exe = find(name)
        if exe is None:
            print(f"{name:<38}   (not installed)")
            continue
        timed(f"peer: {name}", lambda exe=exe, args=args: peer([exe, *args], root))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--tree", type=Path, action="append", default=[])
    parser.add_argument("--peers-bin", type=Path)
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("XDG_DATA_HOME", tempfile.mkdtemp())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        lines = generate(root, args.lines)
        print(f"generated mixed-language repo: {lines} lines, cores: {os.cpu_count()}")
        for target in [root, *args.tree]:
            print(f"-- target: {target}")
            timed("aiagent full static scan", lambda t=target: ours(t))
            timed("aiagent secrets only", lambda t=target: ours(t, ("secrets",)))
            timed("aiagent sast only", lambda t=target: ours(t, ("sast",)))
            if not args.no_peers:
                run_peers(target, args.peers_bin)


if __name__ == "__main__":
    main()
