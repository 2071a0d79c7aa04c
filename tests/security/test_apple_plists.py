"""Apple scanner: Info.plist (ATS, URL schemes, privacy keys) and entitlements."""

from __future__ import annotations

import shutil
from pathlib import Path

from sec_helpers import FIXTURES

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, run_audit

APP = FIXTURES / "ios-app"


def findings(root: Path) -> list[tuple[str, str, int]]:
    result = run_audit(root, SecurityConfig(), AuditOptions(scanners=("apple", "sast"), jobs=1))
    return sorted((f.id, f.location.file, f.location.start_line) for f in result.findings)


def test_ios_app_fixture() -> None:
    assert findings(APP) == [
        ("APPLE-ATS-002", "App/Info.plist", 24),
        ("APPLE-ATS-003", "App/Info.plist", 24),
        ("APPLE-ATS-004", "App/Info.plist", 20),
        ("APPLE-ENT-001", "App/App.entitlements", 9),
        ("APPLE-ENT-002", "App/App.entitlements", 5),
        ("APPLE-ENT-002", "App/App.entitlements", 7),
        ("APPLE-PRIVACY-001", "App/ScannerViewController.swift", 13),
        ("APPLE-PRIVACY-002", "App/Info.plist", 42),
        ("APPLE-URLSCHEME-001", "App/Info.plist", 10),
        ("IOS-SEC-002", "App/Info.plist", 18),
    ]


def test_declared_usage_keys_and_safe_settings_are_quiet(tmp_path: Path) -> None:
    shutil.copytree(APP, tmp_path / "app")
    plist = tmp_path / "app" / "App" / "Info.plist"
    text = plist.read_text()
    text = text.replace("<string></string>", "<string>Find friends who already shop here.</string>")
    text = text.replace("<key>NSCameraUsageDescription</key>",
                        "<key>NSLocationWhenInUseUsageDescription</key>\n\t<string>Show nearby"
                        " stores.</string>\n\t<key>NSCameraUsageDescription</key>")
    start, end = text.index("\t<key>NSAppTransportSecurity</key>"), text.index("\t<key>NSLocationWhen")
    plist.write_text(text[:start] + text[end:])
    (tmp_path / "app" / "App" / "App.entitlements").unlink()
    assert [f[0] for f in findings(tmp_path / "app")] == ["APPLE-URLSCHEME-001"]


def test_binary_and_broken_plists_do_not_crash(tmp_path: Path) -> None:
    import plistlib

    (tmp_path / "Info.plist").write_bytes(plistlib.dumps(
        {"NSAppTransportSecurity": {"NSAllowsLocalNetworking": True}}, fmt=plistlib.FMT_BINARY))
    (tmp_path / "Other.plist").write_text("<plist><dict><key>x</key>")
    assert [f[0] for f in findings(tmp_path)] == ["APPLE-ATS-004"]
