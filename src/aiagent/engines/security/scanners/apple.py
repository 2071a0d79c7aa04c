"""Apple platform scanner (FR-6.10): Info.plist, entitlements, privacy usage descriptions.

Structural checks on parsed property lists (ATS exception domains, URL schemes, the
sandbox entitlement) plus one cross-file check: a Swift/Objective-C file that uses a
protected resource (camera, location, contacts…) while no Info.plist in the project
declares the matching usage description. The regex rules IOS-SEC-002 (NSAllowsArbitraryLoads*)
and APPLE-ENT-001 (debug / weakened code-signing entitlements) live in rules/sast/swift.yaml.
"""

from __future__ import annotations

import plistlib
import re
from functools import lru_cache
from typing import Any
from xml.parsers.expat import ExpatError

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.discovery import Inventory, SourceFile
from aiagent.engines.security.finding import Category, Confidence, Finding, Location, Severity
from aiagent.engines.security.redaction import evidence as redacted_evidence
from aiagent.engines.security.rulepack import read_pack_text
from aiagent.engines.security.scanners.base import ScanContext
from aiagent.engines.security.yamlio import load_yaml

SOURCE_LANGUAGES = frozenset({"swift", "objective-c"})
WEAK_TLS = frozenset({"TLSv1.0", "TLSv1.1"})


@lru_cache(maxsize=1)
def apple_data() -> dict[str, Any]:
    data: dict[str, Any] = load_yaml(read_pack_text("apple.yaml"))
    return data


class AppleScanner:
    name = "apple"

    def __init__(self, config: SecurityConfig | None = None) -> None:
        self.config = config or SecurityConfig()

    def scan_project(self, inventory: Inventory, ctx: ScanContext) -> list[Finding]:
        plists = [f for f in inventory.files if f.language in {"plist", "entitlements"}]
        sources = [f for f in inventory.files if f.language in SOURCE_LANGUAGES]
        if not plists and not sources:
            return []
        findings: list[Finding] = []
        declared: set[str] = set()
        for file in plists:
            data, text = _load(file)
            if not isinstance(data, dict):
                continue
            if file.language == "entitlements":
                findings.extend(_entitlements(file.rel, data, text))
            elif file.rel.rsplit("/", 1)[-1].endswith("Info.plist"):
                declared.update(k for k in data if k.endswith("UsageDescription"))
                findings.extend(_info_plist(file.rel, data, text))
        if any(p.rel.endswith("Info.plist") for p in plists):
            findings.extend(_missing_privacy_keys(sources, declared))
        return findings


def _load(file: SourceFile) -> tuple[Any, str]:
    try:
        raw = file.path.read_bytes()
        return plistlib.loads(raw), raw.decode("utf-8", "replace")
    except (OSError, plistlib.InvalidFileException, ExpatError, ValueError, TypeError):
        return None, ""  # not a property list (or a templated one): nothing to check


def _line(text: str, key: str, after: int = 0) -> int:
    at = text.find(f"<key>{key}</key>", after)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _info_plist(rel: str, data: dict[str, Any], text: str) -> list[Finding]:
    out = [*_ats(rel, data.get("NSAppTransportSecurity"), text)]
    for url_type in data.get("CFBundleURLTypes") or []:
        for scheme in (url_type or {}).get("CFBundleURLSchemes") or []:
            if isinstance(scheme, str) and not scheme.startswith(("fb", "com.googleusercontent")):
                out.append(_make("APPLE-URLSCHEME-001", rel, _line(text, "CFBundleURLSchemes"),
                                 f"{scheme}://", f"The app registers the URL scheme {scheme}://."))
    for key, value in data.items():
        if key.endswith("UsageDescription") and isinstance(value, str) and len(value.strip()) < 4:
            out.append(_make("APPLE-PRIVACY-002", rel, _line(text, key), f"{key}: {value!r}",
                             f"{key} has no real explanation."))
    return out


def _ats(rel: str, ats: Any, text: str) -> list[Finding]:
    if not isinstance(ats, dict):
        return []
    out = []
    if ats.get("NSAllowsLocalNetworking") is True:
        out.append(_make("APPLE-ATS-004", rel, _line(text, "NSAllowsLocalNetworking"),
                         "NSAllowsLocalNetworking: true"))
    for domain, rules in (ats.get("NSExceptionDomains") or {}).items():
        if not isinstance(rules, dict):
            continue
        line = _line(text, domain)
        if rules.get("NSExceptionAllowsInsecureHTTPLoads") is True or \
                rules.get("NSTemporaryExceptionAllowsInsecureHTTPLoads") is True:
            out.append(_make("APPLE-ATS-002", rel, line, f"{domain}: insecure HTTP loads",
                             f"Plain HTTP is allowed for {domain}"
                             f"{' and its subdomains' if rules.get('NSIncludesSubdomains') else ''}."))
        tls = rules.get("NSExceptionMinimumTLSVersion") or rules.get(
            "NSTemporaryExceptionMinimumTLSVersion")
        if tls in WEAK_TLS or rules.get("NSExceptionRequiresForwardSecrecy") is False:
            out.append(_make("APPLE-ATS-003", rel, line, f"{domain}: TLS {tls or 'without PFS'}",
                             f"TLS requirements are lowered for {domain}."))
    return out


def _entitlements(rel: str, data: dict[str, Any], text: str) -> list[Finding]:
    out = []
    if data.get("com.apple.security.app-sandbox") is False:
        out.append(_make("APPLE-ENT-002", rel, _line(text, "com.apple.security.app-sandbox"),
                         "com.apple.security.app-sandbox: false", "The App Sandbox is turned off."))
    for key in data:
        if key.startswith("com.apple.security.temporary-exception."):
            out.append(_make("APPLE-ENT-002", rel, _line(text, key), key,
                             f"The sandbox is bypassed by {key}."))
    return out


@lru_cache(maxsize=1)
def _privacy_patterns() -> dict[str, re.Pattern[str]]:
    return {key: re.compile("|".join(f"(?:{p})" for p in pats))
            for key, pats in apple_data()["privacy"].items()}


def _missing_privacy_keys(sources: list[SourceFile], declared: set[str]) -> list[Finding]:
    wanted = {k: p for k, p in _privacy_patterns().items() if k not in declared}
    out = []
    for file in sources:
        if not wanted:
            break
        try:
            text = file.path.read_text("utf-8", "replace")
        except OSError:
            continue
        for key, pattern in list(wanted.items()):
            m = pattern.search(text)
            if m:
                line = text.count("\n", 0, m.start()) + 1
                out.append(_make("APPLE-PRIVACY-001", file.rel, line, m.group(0),
                                 f"{m.group(0)} needs {key} in Info.plist, which no Info.plist "
                                 "in the project declares."))
                del wanted[key]  # one finding per missing key
    return out


def _make(rule_id: str, rel: str, line: int, evidence: str, detail: str = "") -> Finding:
    meta = apple_data()["rules"][rule_id]
    return Finding(
        id=rule_id, scanner="apple", severity=Severity(meta["severity"]),
        category=Category(meta["category"]), title=meta["title"],
        description=detail or meta["title"], location=Location(rel, line, line),
        cwe=meta.get("cwe", ""), owasp=meta.get("owasp", ""), evidence=redacted_evidence(evidence),
        remediation=meta["remediation"], confidence=Confidence.HIGH,
    )
