"""The security pages of spec FR-3.x beside the findings: the authentication and
authorization review, the data flow of untrusted input, recommendations and the SBOM — all
from the offline audit; the model's review is added to ``auth-review.md`` (through
``Context.sections``) when a model is configured."""

from __future__ import annotations

from collections import Counter
from typing import Any

from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.pages import Page, cell, code, page_link, table
from aiagent.engines.wiki.securitypages import where

AUTH = ("authentication", "authorization")
UNTRUSTED = ("injection", "input-validation", "data-exposure")
MAX_ROWS = 100
ORDER = ["critical", "high", "medium", "low", "info"]


def _sorted(findings: list[Any]) -> list[Any]:
    return sorted(findings, key=lambda f: (ORDER.index(f.severity.value) if f.severity.value in ORDER else 9,
                                           f.location.file, f.location.start_line))


def _rows(ctx: Context, path: str, findings: list[Any]) -> str:

    rows = [[f.severity.value, cell(f.title), code(f.cwe) if f.cwe else "",
             where(ctx, path, f.location.file, f.location.start_line)] for f in _sorted(findings)[:MAX_ROWS]]
    return table(["severity", "finding", "CWE", "where"], rows)


def auth_review(ctx: Context) -> Page:
    path = "security/auth-review.md"
    found = [f for f in ctx.audit.findings if f.category.value in AUTH]
    body = ["# Authentication and authorization review", "",
            f"{len(found)} findings of the offline engine concern authentication or authorization.", "",
            _rows(ctx, path, found)]
    if path not in ctx.sections:
        body += ["", f"_The model's review is not part of this wiki: {cell(ctx.page_note)}._"]
    return Page(path, "Auth review", "\n".join(body) + "\n")


def data_flow(ctx: Context) -> Page:
    """Untrusted input: the dataflow findings (source to sink), and the chains built on them."""
    path = "security/data-flow.md"
    found = [f for f in ctx.audit.findings if f.category.value in UNTRUSTED]
    files = Counter(f.location.file for f in found)
    body = ["# Data flow of untrusted input", "",
            "Where input from outside (requests, files, the environment, arguments) reaches a "
            f"sensitive sink, as the engine's data-flow and pattern scanners found it: {len(found)} findings "
            f"in {len(files)} files.", "", _rows(ctx, path, found), "",
            "## Files most exposed", "",
            table(["file", "findings"], [[cell(f), str(n)] for f, n in files.most_common(20)]), "",
            f"Chained findings: [Attack chains]({page_link(path, 'security/attack-chains.md')})."]
    return Page(path, "Data flow of untrusted input", "\n".join(body) + "\n")


def recommendations(ctx: Context) -> Page:
    """One line per remediation, with how many findings it fixes (worst first)."""
    path = "security/recommendations.md"
    fixes: dict[str, list[Any]] = {}
    for f in _sorted(ctx.audit.findings):
        text = " ".join((f.remediation or "").split())
        if text:
            fixes.setdefault(text, []).append(f)
    rows = [[fs[0].severity.value, cell(text), str(len(fs)), code(fs[0].id)]
            for text, fs in list(fixes.items())[:MAX_ROWS]]
    body = ["# Security recommendations", "", "What the engine's rules advise, worst first "
            "(one line per distinct remediation).", "", table(["worst", "recommendation", "findings", "rule"], rows)]
    return Page(path, "Recommendations", "\n".join(body) + "\n")


def sbom(ctx: Context) -> Page:
    path = "security/sbom.md"
    audit = ctx.audit
    kinds = Counter(str(c.get("purl", "")).split("/", 1)[0].removeprefix("pkg:") or "unknown"
                    for c in audit.components)
    vulnerable = [f for f in audit.findings if f.category.value in ("vulnerable-dependency", "supply-chain")]
    body = ["# Software bill of materials", "",
            f"{len(audit.components)} components; project license: {cell(audit.project_license) or '_not declared_'}. "
            "The full SBOM: `aiagent security-audit --format cyclonedx`.", "",
            table(["ecosystem", "components"], [[cell(k), str(n)] for k, n in kinds.most_common()]), "",
            f"The list: [Dependencies]({page_link(path, 'security/dependencies.md')}).", "",
            "## Vulnerable or risky dependencies", "", _rows(ctx, path, vulnerable)]
    return Page(path, "SBOM", "\n".join(body) + "\n")
