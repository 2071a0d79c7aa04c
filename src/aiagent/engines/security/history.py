"""`--history`: scan lines added in every commit of the git history for secrets."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.finding import Finding, Location
from aiagent.engines.security.scanners.secrets import SecretsScanner
from aiagent.infra.process.git import GitError, prepare, run
from aiagent.infra.syntax.languages import classify

MAX_OUTPUT = 512 * 1024 * 1024


def scan_history(root: Path, config: SecurityConfig, warnings: list[str]) -> list[Finding]:

    if shutil.which("git") is None:
        warnings.append("--history: git is not installed")
        return []
    try:
        call = prepare(root, "log", "-p", "--all", "--no-color", "-U0",
                       "--relative", "--format=commit %H", "--", ".")
        proc = run(call, 600)
    except (GitError, subprocess.TimeoutExpired) as err:
        warnings.append(f"--history: {err}")
        return []
    if proc.returncode != 0:
        warnings.append("--history: not a git repository (or git log failed)")
        return []
    scanner = SecretsScanner(config)
    findings: list[Finding] = []
    for commit, path, lines in _added_chunks(proc.stdout[:MAX_OUTPUT]):
        findings.extend(_scan_chunk(scanner, commit, path, lines))
    return findings


def _scan_chunk(scanner: SecretsScanner, commit: str, path: str,
                lines: list[tuple[int, bytes]]) -> list[Finding]:
    data = b"\n".join(text for _, text in lines) + b"\n"
    out = []
    for f in scanner.scan_text(path, classify(path), data):
        real = lines[f.location.start_line - 1][0]
        meta = {**f.metadata, "commit": commit}
        out.append(replace(f, location=Location(path, real, real), metadata=meta))
    return out


def _added_chunks(log: bytes) -> list[tuple[str, str, list[tuple[int, bytes]]]]:
    chunks: list[tuple[str, str, list[tuple[int, bytes]]]] = []
    commit, path, line_no = "", "", 0
    current: list[tuple[int, bytes]] = []
    for raw in log.split(b"\n"):
        if raw.startswith(b"commit ") and len(raw) == 47:
            commit = raw[7:].decode()
        elif raw.startswith(b"+++ "):
            name = raw[4:].decode("utf-8", "replace")
            path = name[2:] if name.startswith("b/") else ""
            current = []
            chunks.append((commit, path, current))
        elif raw.startswith(b"@@ "):
            line_no = _new_start(raw)
        elif raw.startswith(b"+") and path:
            current.append((line_no, raw[1:]))
            line_no += 1
    return [c for c in chunks if c[1] and c[2]]


def _new_start(hunk: bytes) -> int:
    part = hunk.split(b" ")[2]  # +start[,count]
    return int(part[1:].split(b",")[0] or b"1")
