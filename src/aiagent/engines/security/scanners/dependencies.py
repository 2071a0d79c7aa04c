"""Dependency scanner: lockfiles (and unresolved package.json ranges) → packages → OSV
advisories (+ banned packages). Advisories come from the bundled snapshot merged with the
local database and, when asked, the OSV API; withdrawn records never match."""

from __future__ import annotations

from typing import Any

from aiagent.engines.security.config import BannedDependency, SecurityConfig
from aiagent.engines.security.deps.lockfiles import parser_for
from aiagent.engines.security.deps.manifests import parse_package_json, unresolved_manifests
from aiagent.engines.security.deps.osv_online import online_records
from aiagent.engines.security.deps.osvdb import (
    AdvisoryIndex,
    AdvisorySource,
    OsvDatabase,
    bundled_advisories,
    merge_records,
)
from aiagent.engines.security.deps.osvmatch import fixed_versions, is_affected
from aiagent.engines.security.deps.packages import Package, normalize_name
from aiagent.engines.security.discovery import Inventory
from aiagent.engines.security.finding import Category, Confidence, Finding, Location, Severity
from aiagent.engines.security.scanners.base import ScanContext

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
        if not packages:  # no lockfile or manifest: do not load the snapshot (~0.2 s)
            return []
        source = self._advisories(ctx)
        online = _online(packages, ctx)
        findings: list[Finding] = []
        for pkg in packages:
            local = source.lookup(pkg.ecosystem, pkg.name)
            candidates = merge_records(local + online.get((pkg.ecosystem, normalize_name(
                pkg.ecosystem, pkg.name), pkg.version), []))
            vulns = _one_per_alias_group([r for r in candidates if is_affected(r, pkg)])
            findings.extend(_vuln_finding(pkg, r) for r in vulns)
            findings.extend(_banned_findings(pkg, self.config.banned))
            self.components.append({
                "ecosystem": pkg.ecosystem, "name": pkg.name, "version": pkg.version,
                "purl": pkg.purl, "file": pkg.file, "vulnerabilities": vulns,
            })
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
        for pkg in _manifest_ranges(inventory, ctx):
            seen.setdefault((pkg.ecosystem, pkg.name, pkg.version, pkg.file), pkg)
        return sorted(seen.values(), key=lambda p: (p.file, p.line, p.name))

    def _advisories(self, ctx: ScanContext) -> AdvisoryIndex:
        sources: list[AdvisorySource] = [bundled_advisories()]
        if ctx.osv_db is not None and ctx.osv_db.is_file():
            sources.append(OsvDatabase(ctx.osv_db))  # merged: the newer copy of an id wins
        return AdvisoryIndex(sources)


def _manifest_ranges(inventory: Inventory, ctx: ScanContext) -> list[Package]:
    """package.json ranges with no lockfile beside them, at their floors."""
    files = {f.rel: f for f in inventory.files}
    out: list[Package] = []
    for rel in unresolved_manifests(sorted(files)):
        try:
            found, unchecked = parse_package_json(rel, files[rel].path.read_text("utf-8", "replace"))
        except (ValueError, OSError) as exc:
            ctx.warnings.append(f"{rel}: cannot parse package.json ({type(exc).__name__})")
            continue
        out.extend(found)
        if unchecked:
            ctx.warnings.append(f"{rel}: no lockfile; {len(unchecked)} dependencies name no "
                                f"version to check ({', '.join(sorted(unchecked)[:5])})")
    return out


def _one_per_alias_group(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """PYSEC-… and GHSA-… for the same CVE are one vulnerability: keep the richer record."""
    ranked = sorted(records, key=lambda r: (not _label(r), not r["id"].startswith("GHSA-"), r["id"]))
    kept: list[dict[str, Any]] = []
    seen: set[str] = set()
    for record in ranked:
        names = {record["id"], *(record.get("aliases") or [])}
        if names & seen:
            continue
        seen |= names
        kept.append(record)
    return sorted(kept, key=lambda r: r["id"])


def _label(record: dict[str, Any]) -> str:
    return str((record.get("database_specific") or {}).get("severity", ""))


def _online(packages: list[Package], ctx: ScanContext) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """Records from the OSV API (cached) when asked for; a warning and nothing on failure."""
    if ctx.osv_online is None or not packages:
        return {}

    return online_records(packages, ctx.osv_online, ctx.warnings)


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
    meta = {"package": pkg.name, "version": pkg.version, "ecosystem": pkg.ecosystem,
            "purl": pkg.purl, "aliases": ",".join(aliases), "fixed": ",".join(fixed)}
    version, confidence = pkg.version, Confidence.HIGH
    if pkg.spec:  # a package.json range with no lockfile: checked at its floor
        meta["version_range"] = pkg.spec
        version, confidence = f"{pkg.spec} (range, no lockfile; {pkg.version} allowed)", \
            Confidence.MEDIUM
        fix += f" Raise the range's floor in {pkg.file} above the affected versions, and commit a lockfile."
    references = tuple(r["url"] for r in record.get("references") or [] if "url" in r)[:5]
    return Finding(
        id=record["id"],
        scanner="dependencies",
        severity=_severity(record),
        category=Category.VULNERABLE_DEPENDENCY,
        title=f"{pkg.name} {version}: {summary}",
        description=str(record.get("details") or summary)[:500],
        location=Location(pkg.file, pkg.line, pkg.line),
        cwe=cwes[0] if cwes else "",
        owasp="A06:2021",
        evidence=_evidence(pkg),
        remediation=fix,
        confidence=confidence,
        references=references or (f"https://osv.dev/vulnerability/{record['id']}",),
        metadata=meta,
    )


def _evidence(pkg: Package) -> str:
    if pkg.spec:
        return f'"{pkg.name}": "{pkg.spec}"'
    return f"{pkg.name}=={pkg.version}" if pkg.ecosystem == "PyPI" else f"{pkg.name}@{pkg.version}"


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
