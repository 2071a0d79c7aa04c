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
    from aiagent.engines.wiki.securityextra import auth_review, data_flow, recommendations, sbom

    return [_overview(ctx), _findings(ctx), _chains(ctx), _dependencies(ctx),
            auth_review(ctx), data_flow(ctx), recommendations(ctx), sbom(ctx)]


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
            f"- [Dependencies]({page_link(path, 'security/dependencies.md')})",
            f"- [Authentication and authorization review]({page_link(path, 'security/auth-review.md')})",
            f"- [Data flow of untrusted input]({page_link(path, 'security/data-flow.md')})",
            f"- [Recommendations]({page_link(path, 'security/recommendations.md')})",
            f"- [SBOM]({page_link(path, 'security/sbom.md')})", "",
            "## Findings by area", "", _by_area(ctx)]
    return Page(path, "Security", "\n".join(body) + "\n")


def _by_area(ctx: Context) -> str:
    """Findings per module (its folder), worst first."""
    owner = ctx.module_of()
    counts: dict[str, Counter[str]] = {}
    for f in ctx.audit.findings:
        module = owner.get(f.location.file)
        area = module.title if module else (f.location.file.split("/", 1)[0] if "/" in f.location.file else "(other)")
        counts.setdefault(area, Counter())[f.severity.value] += 1
    order = ["critical", "high", "medium", "low", "info"]
    rows = sorted(counts.items(), key=lambda kv: tuple(-kv[1][s] for s in order))
    return table(["area", *order], [[cell(a), *(str(c[s]) for s in order)] for a, c in rows])


def where(ctx: Context, path: str, file: str, line: int) -> str:
    if not file or not (ctx.model.root / file).is_file():
        return cell(file)
    return f"[{cell(file)}:{line}]({ctx.links.source(path, file, line)})"


def _findings(ctx: Context) -> Page:
    path = "security/findings.md"
    order = ["critical", "high", "medium", "low", "info"]
    findings = sorted(ctx.audit.findings, key=lambda f: (order.index(f.severity.value)
                                                         if f.severity.value in order else 9, f.location.file))
    rows = [[f.severity.value, cell(f.title), code(f.id), where(ctx, path, f.location.file, f.location.start_line)]
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
        body += [f"{i}. {cell(step.title)} — {where(ctx, path, step.location.file, step.location.start_line)}"
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
