"""The checks of ``codesign_doctor``: one entry per check with ``ok``, ``problem`` or
``unchecked`` and, for a problem, what to do."""

from __future__ import annotations

import datetime as dt
import fnmatch
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple import signing
from aiagent.agent.tools.apple.discovery import find_projects
from aiagent.agent.tools.apple.pbxproj import ProjectError, read_project
from aiagent.agent.tools.apple.profiles import ProfileError
from aiagent.agent.tools.apple.signing import IMPLICIT, identities, read_entitlements
from aiagent.agent.tools.tooldef import in_thread
from aiagent.agent.tools.workspace import display_path, resolve_path
from aiagent.contracts.tools import ToolContext, ToolError

Check = dict[str, Any]


async def run_doctor(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:

    target = await in_thread(_project_target, ctx)
    bundle = args.get("bundle_id") or target.get("PRODUCT_BUNDLE_IDENTIFIER")
    team = args.get("team_id") or target.get("DEVELOPMENT_TEAM")
    ent_path = args.get("entitlements_path") or target.get("CODE_SIGN_ENTITLEMENTS")
    wanted = await in_thread(_entitlements(ctx, ent_path)) if ent_path else {}
    result: dict[str, Any] = {"bundle_id": bundle, "team_id": team, "entitlements_file": ent_path,
                              "target": target.get("_target"), "profiles": []}
    if args.get("profile_path"):
        path = resolve_path(ctx, args["profile_path"], field="profile_path", reading=True)
        try:
            found = [await signing.load_profile(path, display_path(ctx, path))]
        except ProfileError as err:
            raise ToolError(str(err)) from None
        errors: list[str] = []
    else:
        found, errors = await signing.profiles(ctx, None, None)
    idents = await _identities(args)
    for profile in found:
        checks = check_profile(profile, bundle, team, wanted, args.get("device_udid"), idents)
        result["profiles"].append({"profile": profile["path"], "name": profile["name"], "kind": profile["kind"],
                                   "checks": checks,
                                   "verdict": "ok" if all(c["status"] != "problem" for c in checks) else "problem"})
    if not found:
        result["profiles_note"] = ("no provisioning profile found: with automatic signing Xcode downloads one "
                                   "(xcodebuild -allowProvisioningUpdates); else download it from the developer portal")
    if errors:
        result["errors"] = errors
    if args.get("build_log"):
        result["log"] = signing.diagnose(str(args["build_log"])) or [
            {"problem": "no known signing failure in the log lines given"}]
    return result


def check_profile(profile: dict[str, Any], bundle: str | None, team: str | None, wanted: dict[str, Any],
                  device: str | None, idents: list[dict[str, str]] | None) -> list[Check]:
    return [c for c in (
        _expiry(profile), _bundle(profile, bundle), _team(profile, team),
        _entitlement_check(profile, wanted), _device(profile, device), _identity(profile, idents),
    ) if c is not None]


def _expiry(profile: dict[str, Any]) -> Check:
    if profile["expired"]:
        return {"check": "expiry", "status": "problem", "detail": f"expired on {profile['expires']}",
                "fix": "regenerate the profile in the developer portal (or let Xcode manage signing) and install it"}
    certs = [c for c in profile["certificates"] if c.get("expires")]
    now = dt.datetime.now(dt.UTC).isoformat()
    if certs and all(c["expires"] < now for c in certs):
        return {"check": "expiry", "status": "problem", "detail": "every certificate in the profile has expired",
                "fix": "create a new certificate and regenerate the profile with it"}
    return {"check": "expiry", "status": "ok", "detail": f"valid until {profile['expires']}"}


def _bundle(profile: dict[str, Any], bundle: str | None) -> Check:
    pattern = profile["bundle_id"]
    if not bundle:
        return {"check": "bundle id", "status": "unchecked", "detail": f"profile App ID {pattern}; no bundle id known"}
    if fnmatch.fnmatchcase(bundle, pattern) if pattern.endswith("*") else bundle == pattern:
        return {"check": "bundle id", "status": "ok", "detail": f"{bundle} matches {pattern}"}
    return {"check": "bundle id", "status": "problem",
            "detail": f"profile is for {pattern}, the app is {bundle}",
            "fix": "use a profile made for this bundle id, or set PRODUCT_BUNDLE_IDENTIFIER to the profile's App ID"}


def _team(profile: dict[str, Any], team: str | None) -> Check | None:
    if not team:
        return None
    if team in profile["team_ids"]:
        return {"check": "team", "status": "ok", "detail": team}
    return {"check": "team", "status": "problem",
            "detail": f"profile belongs to team {', '.join(profile['team_ids'])}, DEVELOPMENT_TEAM is {team}",
            "fix": "set DEVELOPMENT_TEAM to the profile's team or use a profile of your team"}


def _entitlement_check(profile: dict[str, Any], wanted: dict[str, Any]) -> Check | None:

    if not wanted:
        return None
    granted = profile["entitlements"]
    missing = [key for key, value in wanted.items() if key not in IMPLICIT and not _grants(granted.get(key), value)]
    if not missing:
        return {"check": "entitlements", "status": "ok", "detail": f"{len(wanted)} entitlements granted"}
    return {"check": "entitlements", "status": "problem",
            "detail": "not granted by the profile: " + ", ".join(missing),
            "fix": "enable these capabilities on the App ID and regenerate the profile, or remove them "
                   "from the .entitlements file"}


def _grants(granted: Any, asked: Any) -> bool:
    if granted is None:
        return False
    if isinstance(asked, list):
        pool = granted if isinstance(granted, list) else [granted]
        return all(any(fnmatch.fnmatchcase(str(a), str(g)) for g in pool) for a in asked)
    if isinstance(granted, str) and isinstance(asked, str):
        return granted == asked or fnmatch.fnmatchcase(asked, granted) or \
            {granted, asked} <= {"development", "production"} and granted == "production"
    return granted == asked or asked is False


def _device(profile: dict[str, Any], device: str | None) -> Check | None:
    if not device:
        return None
    if profile["all_devices"] or profile["kind"] == "app-store":
        return {"check": "device", "status": "ok", "detail": f"{profile['kind']} profiles are not tied to devices"}
    if device in profile.get("_device_ids", []):
        return {"check": "device", "status": "ok", "detail": f"{device} is in the profile"}
    return {"check": "device", "status": "problem",
            "detail": f"device {device} is not among the profile's {profile['devices']} devices",
            "fix": "register the device UDID in the developer portal and regenerate the profile"}


def _identity(profile: dict[str, Any], idents: list[dict[str, str]] | None) -> Check:
    hashes = {c["sha1"] for c in profile["certificates"]}
    if idents is None:
        return {"check": "identity", "status": "unchecked",
                "detail": "the keychain can only be read on macOS (security find-identity); the profile allows: "
                          + ", ".join(str(c.get("subject")) for c in profile["certificates"])}
    matching = [i["name"] for i in idents if i["sha1"] in hashes]
    if matching:
        return {"check": "identity", "status": "ok", "detail": "signing identity: " + matching[0]}
    return {"check": "identity", "status": "problem",
            "detail": "no identity in the keychain matches a certificate of this profile",
            "fix": "install the certificate and its private key (a .p12), or regenerate the profile with your certificate"}


async def _identities(args: dict[str, Any]) -> list[dict[str, str]] | None:
    from aiagent.agent.tools.apple.invoke import find, on_macos

    if not args.get("check_identities", True) or not on_macos() or not find("security"):
        return None
    return await identities()


def _entitlements(ctx: ToolContext, raw: str) -> Any:

    def read() -> dict[str, Any]:
        path = resolve_path(ctx, raw, field="entitlements_path", reading=True)
        data = read_entitlements(path)
        if "error" in data and len(data) == 1:
            raise ToolError(f"entitlements_path {raw}: {data['error']}")
        return dict(data)
    return read


def _project_target(ctx: ToolContext) -> dict[str, Any]:
    """Signing settings of the first application target of the first project found."""

    root = resolve_path(ctx, ".")
    for project in find_projects(root)["projects"]:
        try:
            summary = read_project(project / "project.pbxproj")
        except ProjectError:
            continue
        for target in summary["targets"]:
            if target.get("product_type") == "application":
                configs = target["configurations"]
                settings: dict[str, Any] = configs.get("Release") or next(iter(configs.values()), {})
                out = {k: str(v) for k, v in settings.items()}
                if "CODE_SIGN_ENTITLEMENTS" in out:
                    out["CODE_SIGN_ENTITLEMENTS"] = str(Path(project.parent, out["CODE_SIGN_ENTITLEMENTS"]).relative_to(root))
                out["_target"] = str(target["name"])
                return out
    return {}
