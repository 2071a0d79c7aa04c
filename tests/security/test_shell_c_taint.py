"""Issue 27: a command string after `sh -c` in an argument list is a shell command (PY-CMDI-001,
high), not only an argument (PY-CMDI-002); a command built in a local helper and run by the
caller is followed."""

from __future__ import annotations

from pathlib import Path

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, run_audit

APP = '''import subprocess
from flask import Flask, request
app = Flask(__name__)

def build(name):
    return "echo " + name

@app.route("/a")
def a():
    bar = request.args.get("x")
    subprocess.run(["sh", "-c", f"echo {bar}"])
    subprocess.run(["/bin/bash", "-c", "ls " + bar], check=True)
    return "ok"

@app.route("/b")
def b():
    cmd = build(request.args.get("x"))
    subprocess.run(cmd, shell=True)
    return "ok"

@app.route("/c")
def c():
    subprocess.run(["sh", "-c", "echo hello"])
    subprocess.run(["sh", "-c", 'echo "$1"', "_", request.args.get("x")])
    subprocess.run(["ls", request.args.get("x")])
    return "ok"
'''


def test_shell_c_with_request_data_is_command_injection(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    result = run_audit(tmp_path, SecurityConfig(), AuditOptions(scanners=("sast",), jobs=1))
    found = sorted((f.id, f.location.start_line) for f in result.findings
                   if f.id.startswith("PY-CMDI"))
    assert found == [
        ("PY-CMDI-001", 11), ("PY-CMDI-001", 12),  # sh -c / bash -c with request data
        ("PY-CMDI-001", 18),  # built in the helper `build`, run by the caller
        ("PY-CMDI-002", 25),  # an argument only; a constant sh -c and "$1" are safe
    ]
