"""Signing (FR-6.5): provisioning profiles built here as real CMS SignedData (a self-signed
certificate, cryptography's PKCS7SignatureBuilder) and decoded by the CMS parser, the
signing doctor's checks, and codesign / security through fakes on PATH."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import plistlib
from pathlib import Path
from typing import Any

import pytest
from apple_harness import call, calls, copy_example, err, ok_json, replay

cryptography = pytest.importorskip("cryptography", reason="needs cryptography (the test extra installs it)")
from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.serialization import pkcs7  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)
DEVICE = "00008110-001A2B3C4D5E801E"


def certificate(common_name: str, days: int = 365) -> tuple[Any, Any]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name),
                      x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "ABCDE12345")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(NOW - dt.timedelta(days=1)).not_valid_after(NOW + dt.timedelta(days=days))
            .sign(key, hashes.SHA256()))
    return cert, key


def profile_plist(**changes: Any) -> dict[str, Any]:
    dev_cert, _ = certificate("Apple Development: Jane Doe (XYZ9876543)")
    plist: dict[str, Any] = {
        "AppIDName": "Notes", "ApplicationIdentifierPrefix": ["ABCDE12345"],
        "CreationDate": (NOW - dt.timedelta(days=10)).replace(tzinfo=None),
        "DeveloperCertificates": [dev_cert.public_bytes(serialization.Encoding.DER)],
        "Entitlements": {"application-identifier": "ABCDE12345.com.example.notes",
                         "aps-environment": "development", "get-task-allow": True,
                         "com.apple.developer.team-identifier": "ABCDE12345",
                         "keychain-access-groups": ["ABCDE12345.*"],
                         "com.apple.security.application-groups": ["group.com.example.notes"]},
        "ExpirationDate": (NOW + dt.timedelta(days=300)).replace(tzinfo=None),
        "Name": "Notes Development", "Platform": ["iOS"], "ProvisionedDevices": [DEVICE],
        "TeamIdentifier": ["ABCDE12345"], "TeamName": "Example Corp", "TimeToLive": 310,
        "UUID": "5B1E0C1A-2D3E-4F50-8A9B-0C1D2E3F4A5B", "Version": 1,
    }
    plist.update(changes)
    return plist


def signed_profile(path: Path, plist: dict[str, Any]) -> Path:
    signer, key = certificate("Apple iPhone OS Provisioning Profile Signing")
    der = (pkcs7.PKCS7SignatureBuilder().set_data(plistlib.dumps(plist))
           .add_signer(signer, key, hashes.SHA256()).sign(serialization.Encoding.DER, []))
    path.write_bytes(der)
    return path


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = copy_example(tmp_path)
    (root / "profiles").mkdir()
    return root


def test_profiles_decoded_from_cms(project: Path) -> None:
    signed_profile(project / "profiles" / "Notes_Dev.mobileprovision", profile_plist())
    info = ok_json(project, "codesign_info", {"query": "profiles"})
    (profile,) = info["profiles"]
    assert info["errors"] == []
    assert profile["path"] == "profiles/Notes_Dev.mobileprovision"
    assert (profile["name"], profile["kind"], profile["bundle_id"]) == ("Notes Development", "development", "com.example.notes")
    assert profile["team_ids"] == ["ABCDE12345"] and profile["devices"] == 1 and not profile["expired"]
    assert profile["certificates"][0]["subject"] == "Apple Development: Jane Doe (XYZ9876543)"
    assert len(profile["certificates"][0]["sha1"]) == 40
    assert profile["entitlements"]["aps-environment"] == "development"
    assert ok_json(project, "codesign_info", {"query": "profiles", "team_id": "OTHER12345"})["profiles"] == []


@pytest.mark.parametrize(("content", "expected"), [
    (b"", "empty file"),
    (b"\x30\x82\x05\x00garbage", "not a signed provisioning profile (bad CMS/DER"),
    (b"<?xml version='1.0'?><plist><dict/></plist>", "not a signed provisioning profile"),
])
def test_bad_profiles_are_named_and_good_ones_still_read(project: Path, content: bytes, expected: str) -> None:
    signed_profile(project / "profiles" / "Good.mobileprovision", profile_plist())
    (project / "profiles" / "Bad.mobileprovision").write_bytes(content)
    info = ok_json(project, "codesign_info", {"query": "profiles"})
    (problem,) = info["errors"]
    assert problem.startswith("profiles/Bad.mobileprovision: ") and expected in problem
    assert [p["name"] for p in info["profiles"]] == ["Notes Development"]


def test_truncated_profile_is_a_clear_error(project: Path) -> None:
    good = signed_profile(project / "profiles" / "Cut.mobileprovision", profile_plist())
    good.write_bytes(good.read_bytes()[:300])
    message = err(project, "codesign_doctor", {"profile_path": "profiles/Cut.mobileprovision"})
    assert message.startswith("profiles/Cut.mobileprovision: not a signed provisioning profile")


def test_signed_content_that_is_not_a_plist(project: Path) -> None:
    signer, key = certificate("signer")
    der = (pkcs7.PKCS7SignatureBuilder().set_data(b"hello, not a plist").add_signer(signer, key, hashes.SHA256())
           .sign(serialization.Encoding.DER, []))
    (project / "profiles" / "Odd.mobileprovision").write_bytes(der)
    (problem,) = ok_json(project, "codesign_info", {"query": "profiles"})["errors"]
    assert problem.startswith("profiles/Odd.mobileprovision: the signed content is not a property list")


def _checks(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (profile,) = result["profiles"]
    return {c["check"]: c for c in profile["checks"]}


def test_doctor_healthy_profile_uses_the_project_settings(project: Path) -> None:
    signed_profile(project / "profiles" / "Dev.mobileprovision", profile_plist())
    result = ok_json(project, "codesign_doctor", {"device_udid": DEVICE})
    assert (result["bundle_id"], result["team_id"], result["target"]) == ("com.example.notes", "ABCDE12345", "NotesApp")
    assert result["entitlements_file"] == "NotesApp/NotesApp.entitlements"
    checks = _checks(result)
    assert {k: c["status"] for k, c in checks.items()} == {
        "expiry": "ok", "bundle id": "ok", "team": "ok", "entitlements": "ok", "device": "ok", "identity": "unchecked"}
    assert "only be read on macOS" in checks["identity"]["detail"]
    assert result["profiles"][0]["verdict"] == "ok"


@pytest.mark.parametrize(("changes", "args", "check", "detail"), [
    ({"ExpirationDate": (NOW - dt.timedelta(days=2)).replace(tzinfo=None)}, {}, "expiry", "expired on"),
    ({"Entitlements": {"application-identifier": "ABCDE12345.com.example.other",
                       "aps-environment": "development", "com.apple.security.application-groups": ["group.com.example.notes"]}},
     {}, "bundle id", "profile is for com.example.other, the app is com.example.notes"),
    ({"Entitlements": {"application-identifier": "ABCDE12345.com.example.notes"}}, {}, "entitlements",
     "not granted by the profile: com.apple.security.application-groups, aps-environment"),
    ({}, {"device_udid": "00008030-000000000000002E"}, "device", "device 00008030-000000000000002E is not among"),
    ({"TeamIdentifier": ["ZZZZZ99999"]}, {}, "team", "profile belongs to team ZZZZZ99999, DEVELOPMENT_TEAM is ABCDE12345"),
])
def test_doctor_explains_each_failure(project: Path, changes: dict[str, Any], args: dict[str, Any],
                                      check: str, detail: str) -> None:
    signed_profile(project / "profiles" / "P.mobileprovision", profile_plist(**changes))
    result = ok_json(project, "codesign_doctor", args)
    found = _checks(result)[check]
    assert found["status"] == "problem" and detail in found["detail"] and found["fix"]
    assert result["profiles"][0]["verdict"] == "problem"


def test_doctor_wildcard_app_id_and_app_store_profile(project: Path) -> None:
    plist = profile_plist(ProvisionedDevices=[], Entitlements={
        "application-identifier": "ABCDE12345.com.example.*", "aps-environment": "production",
        "com.apple.security.application-groups": ["group.com.example.*"]})
    signed_profile(project / "profiles" / "Store.mobileprovision", plist)
    result = ok_json(project, "codesign_doctor", {"device_udid": DEVICE})
    checks = _checks(result)
    assert result["profiles"][0]["kind"] == "app-store"
    assert checks["bundle id"]["status"] == "ok" and checks["entitlements"]["status"] == "ok"
    assert checks["device"]["status"] == "ok"


def test_doctor_explains_log_lines(project: Path) -> None:
    log = ('error: No signing certificate "iOS Distribution" found: No "iOS Distribution" signing certificate '
           'matching team ID "ABCDE12345" with a private key was found. (in target \'NotesApp\')\n'
           "error: Provisioning profile \"Notes Development\" doesn't include the currently selected device "
           "\"Jane's iPhone\" (identifier 00008030-000000000000002E).\n")
    result = ok_json(project, "codesign_doctor", {"build_log": log})
    assert [d["id"] for d in result["log"]] == ["no-identity", "device-missing"]
    assert "profiles_note" in result  # no profile anywhere: says how to get one
    assert ok_json(project, "codesign_doctor", {"build_log": "all fine"})["log"][0]["problem"].startswith("no known")


def test_identities_need_macos_here(project: Path) -> None:
    message = err(project, "codesign_info", {"query": "identities"})
    assert message.startswith("codesign_info identities needs macOS (security find-identity)")


def test_macos_path_with_fake_security(project: Path, fake_bin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The macOS code path: identities from `security find-identity`, profiles through
    `security cms -D` (replayed), and an identity that matches no profile certificate."""
    from aiagent.agent.tools.apple import invoke

    plist = profile_plist()
    sha1 = hashlib.sha1(plist["DeveloperCertificates"][0]).hexdigest().upper()  # noqa: S324
    decoded = project / "decoded.plist"
    decoded.write_bytes(plistlib.dumps(plist))
    other = "0" * 40
    replay(fake_bin, "security", {
        "find-identity": (0, f'  1) {other} "Apple Development: Someone Else (QQQ1111111)"\n'
                             "     1 valid identities found\n", ""),
        "cms -D": (0, decoded.read_text(), ""),
    })
    monkeypatch.setattr(invoke, "on_macos", lambda: True)
    (project / "profiles" / "Dev.mobileprovision").write_bytes(b"opaque to us: security decodes it")
    ids = ok_json(project, "codesign_info", {"query": "identities"})["identities"]
    assert ids == [{"sha1": other, "name": "Apple Development: Someone Else (QQQ1111111)", "id": "QQQ1111111"}]
    result = ok_json(project, "codesign_doctor", {})
    identity = _checks(result)["identity"]
    assert identity["status"] == "problem" and "no identity in the keychain" in identity["detail"]
    assert ["cms", "-D", "-i"] in [c[:3] for c in calls(fake_bin, "security")]
    replay(fake_bin, "security", {
        "find-identity": (0, f'  1) {sha1} "Apple Development: Jane Doe (XYZ9876543)"\n', ""),
        "cms -D": (0, decoded.read_text(), "")})
    assert _checks(ok_json(project, "codesign_doctor", {}))["identity"]["status"] == "ok"


def _app(project: Path) -> Path:
    app = project / "build" / "NotesApp.app"
    app.mkdir(parents=True)
    (app / "NotesApp").write_bytes(b"\xcf\xfa\xed\xfe")
    return app


DISPLAY = """Executable=/tmp/NotesApp.app/NotesApp
Identifier=com.example.notes
Format=app bundle with Mach-O thin (arm64)
CodeDirectory v=20500 size=1234 flags=0x10000(runtime) hashes=27+7 location=embedded
Signature size=4790
Authority=Apple Development: Jane Doe (XYZ9876543)
Authority=Apple Worldwide Developer Relations Certification Authority
Authority=Apple Root CA
Signed Time=1 Jun 2024 at 10:00:00
Info.plist entries=24
TeamIdentifier=ABCDE12345
Runtime Version=17.5.0
Sealed Resources version=2 rules=10 files=12
"""


def test_codesign_verify_valid_and_broken(project: Path, fake_bin: Path) -> None:
    app = _app(project)
    replay(fake_bin, "codesign", {"--verify": (0, "", f"{app}: valid on disk\n{app}: satisfies its Designated Requirement\n"),
                                  "-dv": (0, "", DISPLAY)})
    result = ok_json(project, "codesign_verify", {"app_path": "build/NotesApp.app"})
    assert result["valid"] and result["identifier"] == "com.example.notes" and result["teamidentifier"] == "ABCDE12345"
    assert result["authority"][0] == "Apple Development: Jane Doe (XYZ9876543)" and result["flags"] == ["runtime"]
    assert calls(fake_bin, "codesign")[0] == ["--verify", "--strict", "--verbose=4", "--deep", str(app.resolve())]
    replay(fake_bin, "codesign", {"--verify": (1, "", f"{app}: a sealed resource is missing or invalid\n"
                                                    "file modified: /tmp/NotesApp.app/Info.plist\n"),
                                  "-dv": (0, "", DISPLAY)})
    broken = call(project, "codesign_verify", {"app_path": "build/NotesApp.app", "deep": False})
    data = json.loads(broken.content)
    assert broken.is_error and not data["valid"] and data["diagnosis"][0]["id"] == "resource-modified"
    assert "--deep" not in calls(fake_bin, "codesign")[-2]


def test_codesign_missing_is_one_line(project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _app(project)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    assert err(project, "codesign_verify", {"app_path": "build/NotesApp.app"}) == \
        "codesign needs macOS with the Xcode command-line tools (xcode-select --install)"
    assert err(project, "codesign_verify", {"app_path": "build/Missing.app"}).startswith("app_path build/Missing.app: no such")


def test_entitlements_off_macos(project: Path) -> None:
    app = _app(project)
    signed_profile(app / "embedded.mobileprovision", profile_plist())
    info = ok_json(project, "codesign_info", {"query": "entitlements", "app_path": "build/NotesApp.app"})
    assert info["profile"]["application-identifier"] == "ABCDE12345.com.example.notes"
    assert info["files"]["NotesApp/NotesApp.entitlements"]["aps-environment"] == "development"
    embedded = ok_json(project, "codesign_info", {"query": "profiles", "app_path": "build/NotesApp.app"})["profiles"]
    assert [p["path"] for p in embedded] == ["build/NotesApp.app/embedded.mobileprovision"]
