"""Dockerfile checks: root user, unpinned base, secrets in ENV/ARG, remote ADD, curl|sh."""

from __future__ import annotations

import re

from aiagent.engines.security.finding import Finding
from aiagent.engines.security.scanners.config_meta import make

SECRET_NAME = re.compile(r"(?i)(password|passwd|secret|token|api_?key|private_?key|credentials)")
CURL_PIPE = re.compile(r"(?i)\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da)?sh\b")


def instructions(text: str) -> list[tuple[int, str, str]]:
    """(line, INSTRUCTION, arguments) with continuation lines joined."""
    out: list[tuple[int, str, str]] = []
    buf, start = "", 0
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if not buf:
            start = no
        buf += " " + line.rstrip("\\").strip() if buf else line.rstrip("\\").strip()
        if not line.endswith("\\"):
            word, _, args = buf.partition(" ")
            out.append((start, word.upper(), args.strip()))
            buf = ""
    return out


def scan_dockerfile(rel: str, text: str) -> list[Finding]:
    findings: list[Finding] = []
    stages: list[str] = []
    last_from, user = (0, ""), ""
    for line, op, args in instructions(text):
        if op == "FROM":
            last_from, user = (line, f"FROM {args}"), ""
            findings.extend(_check_from(rel, line, args, stages))
        elif op == "USER":
            user = args.split(":")[0].strip()
        elif op in {"ENV", "ARG"}:
            findings.extend(_check_env(rel, line, op, args))
        elif op == "ADD" and re.search(r"https?://", args):
            findings.append(make("DOCKER-ADD-URL-001", rel, line, f"ADD {args}"))
        elif op == "RUN" and CURL_PIPE.search(args):
            findings.append(make("DOCKER-CURL-PIPE-001", rel, line, f"RUN {args}"))
    if last_from[0] and user in {"", "root", "0"}:
        findings.append(make("DOCKER-ROOT-001", rel, last_from[0], last_from[1],
                             "The final stage has no USER instruction (or sets root), so the app runs as root."))
    return findings


def _check_from(rel: str, line: int, args: str, stages: list[str]) -> list[Finding]:
    parts = [p for p in args.split() if not p.startswith("--")]
    if not parts:
        return []
    image = parts[0]
    if len(parts) >= 3 and parts[1].lower() == "as":
        stages.append(parts[2].lower())
    if image.lower() in stages or image == "scratch" or "@sha256:" in image or "$" in image:
        return []
    tag = image.rsplit("/", 1)[-1].partition(":")[2]
    if tag in {"", "latest"}:
        return [make("DOCKER-LATEST-001", rel, line, f"FROM {args}")]
    return []


def _check_env(rel: str, line: int, op: str, args: str) -> list[Finding]:
    out = []
    for pair in re.findall(r"([A-Za-z_][\w]*)\s*[= ]\s*(\"[^\"]*\"|'[^']*'|\S+)", args):
        name, value = pair
        value = value.strip("\"'")
        if SECRET_NAME.search(name) and value and not value.startswith("$"):
            out.append(make("DOCKER-SECRET-001", rel, line, f"{op} {name}=***"))
    return out
