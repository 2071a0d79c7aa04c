"""License scanner (FR-4.11): declared licenses → SPDX → project policy findings.

Sources: manifests and lockfiles (see ``licensing.declared``), LICENSE/COPYING files, and
where they exist locally, installed packages (``node_modules/*/package.json`` and a
project virtualenv's ``*.dist-info/METADATA``). Nothing is fetched. ``licenses`` (purl →
SPDX expression) and ``project_license`` feed the CycloneDX SBOM.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from aiagent.engines.security.config import LicensePolicy, SecurityConfig
from aiagent.engines.security.discovery import Inventory
from aiagent.engines.security.finding import Category, Confidence, Finding, Location, Severity
from aiagent.engines.security.licensing.data import license_data
from aiagent.engines.security.licensing.declared import (
    DEPENDENCY,
    PROJECT,
    Declared,
    Reader,
    read_metadata,
    read_package_json,
    reader_for,
)
from aiagent.engines.security.licensing.policy import DENIED, failures
from aiagent.engines.security.licensing.spdx import Normalized, normalize, parse
from aiagent.engines.security.licensing.texts import identify, is_license_file
from aiagent.engines.security.scanners.base import ScanContext

MAX_INSTALLED = 5000
VENV_DIRS = (".venv", "venv", "env")


class LicenseScanner:
    name = "licenses"

    def __init__(self, config: SecurityConfig | None = None) -> None:
        self.config = config or SecurityConfig()
        self.licenses: dict[str, str] = {}
        self.project_license = ""

    def scan_project(self, inventory: Inventory, ctx: ScanContext) -> list[Finding]:
        declared = _unique([*self._from_files(inventory, ctx), *_installed(inventory.root)])
        findings: list[Finding] = []
        for item in declared:
            norm = normalize(item.raw) if item.raw else Normalized("", "")
            if norm.known:
                self._remember(item, norm.expression)
            findings.extend(self._judge(item, norm))
        return findings

    def _from_files(self, inventory: Inventory, ctx: ScanContext) -> list[Declared]:
        out: list[Declared] = []
        for file in inventory.files:
            if is_license_file(file.rel):
                out.append(_license_file(file.rel, file.path))
                continue
            reader = reader_for(file.rel)
            if reader is None:
                continue
            try:
                out.extend(reader(file.rel, file.path.read_text("utf-8", "replace")))
            except Exception as exc:  # a malformed manifest is a warning, not a crash
                ctx.warnings.append(f"{file.rel}: cannot read license ({type(exc).__name__})")
        return out

    def _remember(self, item: Declared, expression: str) -> None:
        if item.scope == DEPENDENCY and item.purl:
            self.licenses.setdefault(item.purl, expression)
        elif item.scope == PROJECT and "/" not in item.file and not self.project_license:
            self.project_license = expression

    def _judge(self, item: Declared, norm: Normalized) -> list[Finding]:
        if not norm.known:
            detail = f"'{item.raw}'" if item.raw else "a license text that is not recognised"
            return [_finding("LIC-UNKNOWN-001", item, f"{_who(item)} declares {detail}.")]
        policy = self.config.licenses
        if policy.deny or policy.allow:
            failed = failures(parse(norm.expression), policy)
            if not failed:
                return []
            rule = "LIC-DENIED-001" if any(v == DENIED for v, _ in failed) else "LIC-NOT-ALLOWED-001"
            ids = ", ".join(dict.fromkeys(k for _, k in failed))
            return [_finding(rule, item, f"{_who(item)} is licensed {norm.expression} ({ids} "
                             f"{'denied' if rule == 'LIC-DENIED-001' else 'not allowed'} by "
                             f"{self.config.source or 'the license policy'}).", norm.expression)]
        if item.scope == DEPENDENCY and _copyleft_only(norm.expression):
            return [_finding("LIC-COPYLEFT-001", item,
                             f"{_who(item)} is licensed {norm.expression}.", norm.expression)]
        return []


def _copyleft_only(expression: str) -> bool:
    """True when every way to satisfy the expression takes a strong or network copyleft."""

    strong = [i for kind in ("strong", "network") for i in license_data()["copyleft"][kind]]
    return bool(failures(parse(expression), LicensePolicy(deny=tuple(strong))))


def _who(item: Declared) -> str:
    if item.name:
        return f"{item.name} {item.version}".strip()
    return "This project" if item.scope == PROJECT else "A dependency"


def _finding(rule_id: str, item: Declared, description: str, expression: str = "") -> Finding:
    meta = license_data()["findings"][rule_id]
    return Finding(
        id=rule_id, scanner="licenses", severity=Severity(meta["severity"]),
        category=Category.LICENSE_COMPLIANCE,
        title=f"{meta['title']}: {_who(item)}" if item.name else meta["title"],
        description=description, location=Location(item.file, item.line, item.line),
        evidence=f"license: {item.raw}" if item.raw else "", remediation=meta["remediation"],
        confidence=Confidence.HIGH if expression else Confidence.MEDIUM,
        metadata={k: v for k, v in (("package", item.name), ("version", item.version),
                                    ("ecosystem", item.ecosystem), ("license", expression),
                                    ("declared", item.raw), ("scope", item.scope)) if v},
    )


def _license_file(rel: str, path: Path) -> Declared:
    try:
        found = identify(path.read_text("utf-8", "replace"))
    except OSError:
        found = ""
    return Declared("", "", "", found, rel, 1, PROJECT)


def _unique(items: list[Declared]) -> list[Declared]:
    seen: set[tuple[str, str, str, str]] = set()
    out = []
    for item in items:
        key = (item.ecosystem, item.name.lower(), item.version, item.file if not item.name else "")
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _installed(root: Path) -> list[Declared]:
    """Licenses of packages installed inside the project (node_modules, a virtualenv)."""
    out: list[Declared] = []
    modules = root / "node_modules"
    if modules.is_dir():
        for manifest in [*modules.glob("*/package.json"), *modules.glob("@*/*/package.json")]:
            out.extend(_read(manifest, root, read_package_json))
            if len(out) >= MAX_INSTALLED:
                return out
    for venv in VENV_DIRS:
        for meta in (root / venv).glob("lib/python*/site-packages/*.dist-info/METADATA"):
            out.extend(_read(meta, root, read_metadata))
            if len(out) >= MAX_INSTALLED:
                return out
    return out


def _read(path: Path, root: Path, reader: Reader) -> list[Declared]:
    rel = path.relative_to(root).as_posix()
    try:
        found = reader(rel, path.read_text("utf-8", "replace"))
    except Exception:  # an unreadable installed manifest is skipped
        return []
    return [replace(d, scope=DEPENDENCY) for d in found]
