"""The security chapter, from the offline security engine's audit (``run_audit``)."""

from __future__ import annotations

from collections import Counter

from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.pages import Page, cell, code, page_link, table

MAX_FINDINGS = 200


def security_pages(ctx: Context) -> list[Page]:
    audit = ctx.audit
    if audit is None:
        note = f"The security audit did not run: {cell(ctx.audit_error)}." if ctx.audit_error else \
            "The security audit did not run."
        return [Page("security/overview.md", "Security", f"# Security\n\n{note}\n")]
    return [_overview(ctx), _findings(ctx), _chains(ctx), _dependencies(ctx)]


def _overview(ctx: Context) -> Page:
    path, audit = "security/overview.md", ctx.audit
    severities = Counter(f.severity.value for f in audit.findings)
    categories = Counter(f.category.value for f in audit.findings)
    body = ["# Security", "",
            f"The offline security engine scanned {audit.files_scanned} files ({audit.lines_scanned} lines) "
            f"with {len(audit.scanners)} scanners: {len(audit.findings)} findings, "
            f"{len(audit.chains)} attack chains, {len(audit.components)} dependencies.", "",
            table(["severity", "findings"], [[s, str(n)] for s, n in severities.most_common()]), "",
            table(["category", "findings"], [[c, str(n)] for c, n in categories.most_common()]), "",
            f"- [Findings]({page_link(path, 'security/findings.md')})",
            f"- [Attack chains]({page_link(path, 'security/attack-chains.md')})",
            f"- [Dependencies]({page_link(path, 'security/dependencies.md')})"]
    return Page(path, "Security", "\n".join(body) + "\n")


def _where(ctx: Context, path: str, file: str, line: int) -> str:
    if not file or not (ctx.model.root / file).is_file():
        return cell(file)
    return f"[{cell(file)}:{line}]({ctx.links.source(path, file, line)})"


def _findings(ctx: Context) -> Page:
    path = "security/findings.md"
    order = ["critical", "high", "medium", "low", "info"]
    findings = sorted(ctx.audit.findings, key=lambda f: (order.index(f.severity.value)
                                                         if f.severity.value in order else 9, f.location.file))
    rows = [[f.severity.value, cell(f.title), code(f.id), _where(ctx, path, f.location.file, f.location.start_line)]
            for f in findings[:MAX_FINDINGS]]
    body = ["# Findings", "", table(["severity", "finding", "rule", "where"], rows)]
    return Page(path, "Findings", "\n".join(body) + "\n")


def _chains(ctx: Context) -> Page:
    path = "security/attack-chains.md"
    body = ["# Attack chains", ""]
    if not ctx.audit.chains:
        body.append("_No attack chain was found._")
    for chain in ctx.audit.chains:
        body += [f"## {cell(chain.title)}", "", f"Severity: {chain.severity.value}. {cell(chain.impact)}", ""]
        body += [f"{i}. {cell(step.title)} — {_where(ctx, path, step.location.file, step.location.start_line)}"
                 for i, step in enumerate(chain.steps, 1)]
        body.append("")
    return Page(path, "Attack chains", "\n".join(body) + "\n")


def _dependencies(ctx: Context) -> Page:
    path = "security/dependencies.md"
    rows = []
    for comp in ctx.audit.components[:MAX_FINDINGS]:
        purl = str(comp.get("purl", ""))
        rows.append([cell(str(comp.get("name", ""))), cell(str(comp.get("version", ""))),
                     cell(ctx.audit.licenses.get(purl, "")), code(purl) if purl else ""])
    body = ["# Dependencies", "", "Third-party components declared by the project's manifests and "
            "lockfiles (the SBOM: `aiagent security-audit --format cyclonedx`).", "",
            table(["name", "version", "license", "purl"], rows)]
    return Page(path, "Dependencies", "\n".join(body) + "\n")
