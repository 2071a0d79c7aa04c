"""CycloneDX 1.6 JSON SBOM: components from lockfiles with their licenses, vulnerabilities
from OSV matches, and the scanned project (with its declared license) as the subject.

Deterministic: the serial number derives from the component list and no timestamp is set.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

from aiagent.engines.security.report.common import TOOL_NAME, TOOL_VERSION

if TYPE_CHECKING:
    from aiagent.engines.security.engine import AuditResult
    from aiagent.engines.security.report.common import ReportOptions

SEVERITY = {"CRITICAL": "critical", "HIGH": "high", "MODERATE": "medium", "MEDIUM": "medium",
            "LOW": "low"}


def build_bom(result: AuditResult) -> Any:
    from cyclonedx.model.bom import Bom
    from cyclonedx.model.bom_ref import BomRef
    from cyclonedx.model.component import Component, ComponentType
    from cyclonedx.model.vulnerability import BomTarget, Vulnerability
    from packageurl import PackageURL

    seen: dict[str, Any] = {}
    vulns: dict[str, Any] = {}
    for comp in sorted(result.components, key=lambda c: (c["purl"], c["file"])):
        if comp["purl"] in seen:
            continue
        component = Component(
            name=comp["name"], version=comp["version"], type=ComponentType.LIBRARY,
            purl=PackageURL.from_string(comp["purl"]), bom_ref=BomRef(comp["purl"]),
            licenses=_licenses(result.licenses.get(comp["purl"], "")),
        )
        seen[comp["purl"]] = component
        for record in comp["vulnerabilities"]:
            vuln = vulns.get(record["id"]) or _vulnerability(record, Vulnerability)
            vulns[record["id"]] = vuln
            vuln.affects.add(BomTarget(ref=comp["purl"]))
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, "aiagent:" + ",".join(sorted(seen)))
    bom = Bom(components=seen.values(), vulnerabilities=vulns.values(), serial_number=namespace)
    bom.metadata.timestamp = None  # type: ignore[assignment]  # reproducible output
    project = Component(
        name=result.root.name, type=ComponentType.APPLICATION, bom_ref=BomRef("project"),
        licenses=_licenses(result.project_license),
    )
    bom.metadata.component = project
    bom.register_dependency(project, list(seen.values()))  # lockfiles give a flat list
    return bom


def _licenses(expression: str) -> list[Any]:
    if not expression:
        return []
    try:
        from cyclonedx.contrib.license.factories import LicenseFactory
    except ImportError:  # cyclonedx-python-lib before the contrib package
        from cyclonedx.factory.license import LicenseFactory
    return [LicenseFactory().make_from_string(expression)]


def _vulnerability(record: dict[str, Any], cls: Any) -> Any:
    from cyclonedx.model.vulnerability import (
        VulnerabilityRating,
        VulnerabilitySeverity,
        VulnerabilitySource,
    )

    label = str((record.get("database_specific") or {}).get("severity", "")).upper()
    ratings = []
    if label in SEVERITY:
        ratings.append(VulnerabilityRating(severity=VulnerabilitySeverity(SEVERITY[label])))
    cwes = [int(c.split("-")[1]) for c in (record.get("database_specific") or {}).get("cwe_ids", [])
            if c.startswith("CWE-") and c.split("-")[1].isdigit()]
    return cls(
        bom_ref=record["id"], id=record["id"],
        source=VulnerabilitySource(name="OSV", url=None),
        description=record.get("summary"), detail=record.get("details"),
        ratings=ratings, cwes=cwes,
    )


def render(result: AuditResult, options: ReportOptions | None = None) -> str:
    del options  # nothing to choose in this format
    from cyclonedx.output.json import JsonV1Dot6

    text = JsonV1Dot6(build_bom(result)).output_as_string(indent=2)
    data = json.loads(text)
    data.setdefault("metadata", {})["tools"] = {"components": [
        {"type": "application", "name": TOOL_NAME, "version": TOOL_VERSION}]}
    return json.dumps(data, indent=2) + "\n"
