"""Dependency scanner: lockfiles → packages → OSV advisories (+ banned packages)."""

from __future__ import annotations

from typing import Any

from aiagent.security.config import BannedDependency, SecurityConfig
from aiagent.security.deps.lockfiles import parser_for
from aiagent.security.deps.osvdb import OsvDatabase, SeedAdvisories
from aiagent.security.deps.osvmatch import fixed_versions, is_affected
from aiagent.security.deps.packages import Package, normalize_name
from aiagent.security.discovery import Inventory
from aiagent.security.finding import Category, Confidence, Finding, Location, Severity
from aiagent.security.scanners.base import ScanContext

OSV_SEVERITY = {
    "CRITICAL": Severity.CRITICAL, "HIGH": Severity.HIGH, "MODERATE": Severity.MEDIUM,
    "MEDIUM": Severity.MEDIUM, "LOW": Severity.LOW,
}


class DependencyScanner:
    name = "dependencies"

    def __init__(self, config: SecurityConfig | None = None) -> None:
        self.config = config or SecurityConfig()
        self.components: list[dict[str, Any]] = []

    def scan_project(self, inventory: Inventory, ctx: ScanContext) -> list[Finding]:
        packages = self._packages(inventory, ctx)
        source = self._advisories(ctx)
        online = _online(packages, ctx)
        findings: list[Finding] = []
        for pkg in packages:
            local = source.lookup(pkg.ecosystem, pkg.name)
            candidates = _merge(local, online.get((pkg.ecosystem, normalize_name(
                pkg.ecosystem, pkg.name), pkg.version), []))
            vulns = [r for r in candidates if is_affected(r, pkg)]
            findings.extend(_vuln_finding(pkg, r) for r in vulns)
            findings.extend(_banned_findings(pkg, self.config.banned))
            self.components.append({
                "ecosystem": pkg.ecosystem, "name": pkg.name, "version": pkg.version,
                "purl": pkg.purl, "file": pkg.file, "vulnerabilities": vulns,
            })
        if isinstance(source, OsvDatabase):
            source.close()
        return findings

    def _packages(self, inventory: Inventory, ctx: ScanContext) -> list[Package]:
        seen: dict[tuple[str, str, str, str], Package] = {}
        for file in inventory.files:
            parser = parser_for(file.rel)
            if parser is None:
                continue
            try:
                found = parser(file.rel, file.path.read_text("utf-8", "replace"))
            except Exception as exc:  # a malformed lockfile is a warning, not a crash
                ctx.warnings.append(f"{file.rel}: cannot parse lockfile ({type(exc).__name__})")
                continue
            for pkg in found:
                seen.setdefault((pkg.ecosystem, normalize_name(pkg.ecosystem, pkg.name),
                                 pkg.version, pkg.file), pkg)
        return sorted(seen.values(), key=lambda p: (p.file, p.line, p.name))

    def _advisories(self, ctx: ScanContext) -> OsvDatabase | SeedAdvisories:
        if ctx.osv_db is not None and ctx.osv_db.is_file():
            return OsvDatabase(ctx.osv_db)
        seed = SeedAdvisories()
        return seed


def _online(packages: list[Package], ctx: ScanContext) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """Records from the OSV API (cached) when asked for; a warning and nothing on failure."""
    if ctx.osv_online is None or not packages:
        return {}
    from aiagent.security.deps.osv_online import online_records

    return online_records(packages, ctx.osv_online, ctx.warnings)


def _merge(local: list[dict[str, Any]], online: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per id; the API's copy wins, being the fresher."""
    merged = {r["id"]: r for r in local}
    merged.update((r["id"], r) for r in online)
    return list(merged.values())


def _severity(record: dict[str, Any]) -> Severity:
    label = str((record.get("database_specific") or {}).get("severity", "")).upper()
    return OSV_SEVERITY.get(label, Severity.HIGH)


def _vuln_finding(pkg: Package, record: dict[str, Any]) -> Finding:
    fixed = fixed_versions(record, pkg)
    aliases = [a for a in record.get("aliases") or [] if a.startswith("CVE-")]
    cwes = (record.get("database_specific") or {}).get("cwe_ids") or []
    summary = record.get("summary") or record["id"]
    fix = f"Upgrade {pkg.name} to {' or '.join(fixed)} or later." if fixed else \
        f"No fixed version listed; replace or isolate {pkg.name}."
    return Finding(
        id=record["id"],
        scanner="dependencies",
        severity=_severity(record),
        category=Category.VULNERABLE_DEPENDENCY,
        title=f"{pkg.name} {pkg.version}: {summary}",
        description=str(record.get("details") or summary)[:500],
        location=Location(pkg.file, pkg.line, pkg.line),
        cwe=cwes[0] if cwes else "",
        owasp="A06:2021",
        evidence=f"{pkg.name}=={pkg.version}" if pkg.ecosystem == "PyPI" else f"{pkg.name}@{pkg.version}",
        remediation=fix,
        confidence=Confidence.HIGH,
        references=tuple(r["url"] for r in record.get("references") or [] if "url" in r)[:5],
        metadata={"package": pkg.name, "version": pkg.version, "ecosystem": pkg.ecosystem,
                  "purl": pkg.purl, "aliases": ",".join(aliases), "fixed": ",".join(fixed)},
    )


def _banned_findings(pkg: Package, banned: tuple[BannedDependency, ...]) -> list[Finding]:
    out = []
    for ban in banned:
        if ban.ecosystem and ban.ecosystem != pkg.ecosystem:
            continue
        if normalize_name(pkg.ecosystem, ban.package) != normalize_name(pkg.ecosystem, pkg.name):
            continue
        out.append(Finding(
            id="DEP-BANNED-001", scanner="dependencies", severity=Severity.HIGH,
            category=Category.SUPPLY_CHAIN, title=f"Banned dependency {pkg.name}",
            description=ban.reason or "Banned by project policy (.security.yaml).",
            location=Location(pkg.file, pkg.line, pkg.line), evidence=f"{pkg.name} {pkg.version}",
            remediation=ban.reason or "Remove the dependency.", confidence=Confidence.HIGH,
            metadata={"package": pkg.name, "version": pkg.version, "ecosystem": pkg.ecosystem},
        ))
    return out
