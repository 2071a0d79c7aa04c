"""Provisioning profiles (``.mobileprovision`` / ``.provisionprofile``): a CMS (PKCS#7)
SignedData whose content is an XML property list. Decoded with ``security cms -D`` on macOS
and with asn1crypto's CMS parser elsewhere; never trusted for more than what it says."""

from __future__ import annotations

import datetime as dt
import hashlib
import plistlib
from pathlib import Path
from typing import Any

MAX_PROFILE_BYTES = 2 * 1024 * 1024


class ProfileError(ValueError):
    """A profile cannot be decoded; the message names the file."""


def decode_cms(data: bytes, shown: str) -> bytes:
    """The signed content of a CMS SignedData blob."""
    from asn1crypto import cms

    try:
        info = cms.ContentInfo.load(data, strict=True)
        if info["content_type"].native != "signed_data":
            raise ProfileError(f"{shown}: CMS content is {info['content_type'].native}, not signed data")
        content = info["content"]["encap_content_info"]["content"].native
    except ProfileError:
        raise
    except Exception as err:  # asn1crypto raises ValueError/TypeError/others on bad DER
        raise ProfileError(f"{shown}: not a signed provisioning profile (bad CMS/DER: "
                           f"{str(err).splitlines()[0][:120] or type(err).__name__})") from None
    if not isinstance(content, bytes):
        raise ProfileError(f"{shown}: the CMS signed data has no embedded content")
    return content


def parse_plist(content: bytes, shown: str) -> dict[str, Any]:
    try:
        data = plistlib.loads(content)
    except (ValueError, plistlib.InvalidFileException) as err:
        raise ProfileError(f"{shown}: the signed content is not a property list: {err}") from None
    if not isinstance(data, dict):
        raise ProfileError(f"{shown}: the property list is not a dictionary")
    return data


def summarize(plist: dict[str, Any], shown: str, now: dt.datetime | None = None) -> dict[str, Any]:
    """The fields that matter for signing, plus kind and expiry."""
    now = now or dt.datetime.now(dt.UTC)
    raw = plist.get("Entitlements")
    entitlements: dict[str, Any] = raw if isinstance(raw, dict) else {}
    expires = _utc(plist.get("ExpirationDate"))
    devices = [str(d) for d in plist.get("ProvisionedDevices") or []]
    app_id = str(entitlements.get("application-identifier") or entitlements.get("com.apple.application-identifier") or "")
    team = [str(t) for t in plist.get("TeamIdentifier") or []]
    out: dict[str, Any] = {
        "path": shown, "name": plist.get("Name"), "uuid": plist.get("UUID"),
        "team_ids": team, "team_name": plist.get("TeamName"), "app_id_name": plist.get("AppIDName"),
        "application_identifier": app_id,
        "bundle_id": app_id.split(".", 1)[1] if "." in app_id else app_id,
        "platforms": plist.get("Platform") or [],
        "kind": _kind(plist, entitlements, devices),
        "created": _iso(_utc(plist.get("CreationDate"))), "expires": _iso(expires),
        "expired": bool(expires and expires < now),
        "devices": len(devices), "all_devices": bool(plist.get("ProvisionsAllDevices")),
        "certificates": [_certificate(c) for c in plist.get("DeveloperCertificates") or [] if isinstance(c, bytes)],
        "entitlements": _plain(entitlements),
    }
    out["_device_ids"] = devices
    return out


def _kind(plist: dict[str, Any], entitlements: dict[str, Any], devices: list[str]) -> str:
    if plist.get("ProvisionsAllDevices"):
        return "enterprise"
    if not devices:
        return "app-store"
    return "development" if entitlements.get("get-task-allow") else "ad-hoc"


def _certificate(der: bytes) -> dict[str, Any]:
    from asn1crypto import x509

    out: dict[str, Any] = {"sha1": hashlib.sha1(der).hexdigest().upper()}  # noqa: S324 - Apple's identity hash
    try:
        cert = x509.Certificate.load(der)
        out["subject"] = cert.subject.native.get("common_name")
        out["team"] = cert.subject.native.get("organizational_unit_name")
        out["expires"] = _iso(cert["tbs_certificate"]["validity"]["not_after"].native)
    except Exception:  # a certificate that does not parse is listed by hash only
        out["subject"] = None
    return out


def _utc(value: Any) -> dt.datetime | None:
    if not isinstance(value, dt.datetime):
        return None
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value else None


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return value


def read_profile(path: Path, shown: str) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_PROFILE_BYTES:
            raise ProfileError(f"{shown}: larger than 2 MB; not a provisioning profile")
        data = path.read_bytes()
    except OSError as err:
        raise ProfileError(f"{shown}: cannot read: {err.strerror or err}") from None
    if not data:
        raise ProfileError(f"{shown}: empty file")
    return data
