"""GitHub Actions and GitLab CI checks: script injection, pull_request_target checkouts,
unpinned actions, token permissions."""

from __future__ import annotations

import re
from typing import Any

from aiagent.engines.security.finding import Finding
from aiagent.engines.security.scanners import yamlnodes as yn
from aiagent.engines.security.scanners.config_meta import make

UNTRUSTED = re.compile(
    r"\$\{\{\s*(github\.event\.(issue\.(title|body)|pull_request\.(title|body|head\.ref|head\.label)"
    r"|comment\.body|review\.body|review_comment\.body|discussion\.(title|body)"
    r"|head_commit\.(message|author\.(name|email))|commits\b[^}]*\.(message|author)"
    r"|pages\b[^}]*\.page_name|workflow_run\.head_branch)|github\.head_ref)[^}]*\}\}"
)
PR_HEAD = re.compile(r"github\.event\.pull_request\.head\.(sha|ref)|github\.head_ref")
SHA = re.compile(r"^[0-9a-f]{40}$")
GITLAB_UNTRUSTED = re.compile(r"\$\{?CI_MERGE_REQUEST_(TITLE|DESCRIPTION|SOURCE_BRANCH_NAME)\b")


def scan_workflow(rel: str, text: str) -> list[Finding]:
    findings: list[Finding] = []
    for doc in yn.compose_all(text):
        triggers = _triggers(yn.get(doc, "on"))
        for path, node in yn.walk(doc):
            key = path[-1] if path else ""
            value = yn.scalar(node)
            if value is None:
                continue
            if key == "run":
                findings.extend(_injection(rel, node, value))
            elif key == "uses":
                findings.extend(_unpinned(rel, node, value))
            elif key == "ref" and "pull_request_target" in triggers and PR_HEAD.search(value):
                findings.append(make("GHA-PRT-CHECKOUT-001", rel, yn.line(node), f"ref: {value}"))
        findings.extend(_permissions(rel, doc))
    return findings


def _triggers(node: Any) -> set[str]:
    value = yn.scalar(node)
    if value is not None:
        return {value}
    return {yn.scalar(n) or "" for n in yn.seq(node)} | {k for k, _ in yn.items(node)}


def _injection(rel: str, node: Any, value: str) -> list[Finding]:
    return [make("GHA-INJECTION-001", rel, yn.line_in_scalar(node, m.start()), m.group(0),
                 f"`{m.group(0)}` is attacker-controlled and is pasted into the shell script.")
            for m in UNTRUSTED.finditer(value)]


def _unpinned(rel: str, node: Any, value: str) -> list[Finding]:
    if value.startswith(("./", "docker://")) or "@" not in value:
        return []
    ref = value.rsplit("@", 1)[1]
    if SHA.match(ref):
        return []
    return [make("GHA-UNPINNED-001", rel, yn.line(node), f"uses: {value}")]


def _permissions(rel: str, doc: Any) -> list[Finding]:
    found = False
    out = []
    for path, node in yn.walk(doc):
        if not path or path[-1] != "permissions":
            continue
        found = True
        if yn.scalar(node) == "write-all":
            out.append(make("GHA-PERMISSIONS-001", rel, yn.line(node), "permissions: write-all"))
    if not found and yn.get(doc, "jobs") is not None:
        out.append(make("GHA-PERMISSIONS-002", rel, 1, "no permissions: block"))
    return out


def scan_gitlab(rel: str, text: str) -> list[Finding]:
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        m = GITLAB_UNTRUSTED.search(line)
        if m and not re.search(r"[\"']\$\{?CI_MERGE_REQUEST", line):
            out.append(make("GITLAB-INJECTION-001", rel, no, line))
    return out
