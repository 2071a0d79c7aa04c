"""Code signing (FR-6.5): ``codesign_info`` (identities, provisioning profiles,
entitlements), ``codesign_verify`` and ``codesign_doctor``, which explains the common
failures: expired profile, bundle id mismatch, missing entitlement, device not in the
profile, no matching identity, team mismatch, and known lines of a signing error log.

``codesign`` and ``security`` run only where they exist (macOS); elsewhere profiles are
decoded from their CMS envelope (:mod:`aiagent.agent.tools.apple.profiles`) and the checks that
need the keychain say so.
"""

from __future__ import annotations

import json
import os
import plistlib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.invoke import find, need, run
from aiagent.agent.tools.apple.profiles import (
    ProfileError,
    decode_cms,
    parse_plist,
    read_profile,
    summarize,
)
from aiagent.agent.tools.tooldef import BuiltinTool, boolean, in_thread, schema, string
from aiagent.agent.tools.workspace import display_path, resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError, ToolResult

TIMEOUT = 120.0
PROFILE_SUFFIXES = (".mobileprovision", ".provisionprofile")
PROFILE_DIRS = ("~/Library/MobileDevice/Provisioning Profiles",
                "~/Library/Developer/Xcode/UserData/Provisioning Profiles")
IDENTITY = re.compile(r"^\s*\d+\)\s+([0-9A-F]{40})\s+\"(.+)\"\s*$")
SKIP_DIRS = {".git", ".build", "build", "DerivedData", "node_modules", "Pods"}
#: Entitlements a profile need not list (Xcode adds or derives them).
IMPLICIT = {"application-identifier", "com.apple.application-identifier", "com.apple.developer.team-identifier",
            "keychain-access-groups", "get-task-allow", "com.apple.security.get-task-allow"}


@lru_cache(maxsize=1)
def error_patterns() -> list[dict[str, str]]:
    import yaml

    return list(yaml.safe_load((Path(__file__).parent / "data" / "signing_errors.yaml").read_text("utf-8")))


async def load_profile(path: Path, shown: str) -> dict[str, Any]:
    """A profile's summary: ``security cms -D`` on macOS, the CMS parser elsewhere."""
    from aiagent.agent.tools.apple.invoke import find, on_macos, run

    data = await in_thread(read_profile, path, shown)
    if on_macos() and find("security"):
        ran = await run("security", ["cms", "-D", "-i", str(path)], cwd=path.parent, timeout=TIMEOUT)
        if ran.exit_code != 0:
            raise ProfileError(f"{shown}: security cms -D failed: {ran.stderr.strip()[:200]}")
        content = ran.stdout.encode("utf-8")
    else:
        content = decode_cms(data, shown)
    return summarize(parse_plist(content, shown), shown)


def profile_paths(root: Path, app: Path | None) -> list[Path]:
    if app is not None:
        embedded = [app / "embedded.mobileprovision", app / "Contents" / "embedded.provisionprofile"]
        return [p for p in embedded if p.is_file()]
    found: list[Path] = []
    for folder in PROFILE_DIRS:
        where = Path(os.path.expanduser(folder))
        if where.is_dir():
            found += sorted(p for p in where.iterdir() if p.suffix in PROFILE_SUFFIXES)
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        found += [Path(folder, f) for f in sorted(files) if f.endswith(PROFILE_SUFFIXES)]
        if len(found) > 200:
            break
    return found[:200]


async def profiles(ctx: ToolContext, app: Path | None, team: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    out, errors = [], []
    for path in await in_thread(profile_paths, resolve_path(ctx, "."), app):
        try:
            profile = await load_profile(path, display_path(ctx, path))
        except ProfileError as err:
            errors.append(str(err))
            continue
        if team is None or team in profile["team_ids"]:
            out.append(profile)
    return out, errors


async def identities() -> list[dict[str, str]]:

    ran = await run("security", ["find-identity", "-v", "-p", "codesigning"], cwd=Path.home(), timeout=TIMEOUT)
    if ran.exit_code != 0:
        raise ToolError(f"security find-identity failed: {ran.stderr.strip()[:200]}")
    out = []
    for line in ran.stdout.splitlines():
        match = IDENTITY.match(line)
        if match:
            team = re.search(r"\(([A-Z0-9]{10})\)\s*$", match.group(2))
            out.append({"sha1": match.group(1), "name": match.group(2), **({"id": team.group(1)} if team else {})})
    return out


def _public(profile: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in profile.items() if not k.startswith("_")}


def _app(ctx: ToolContext, raw: Any) -> Path:
    app = resolve_path(ctx, str(raw), field="app_path", reading=True)
    if not app.exists():
        raise ToolError(f"app_path {raw}: no such file or folder")
    return app


class CodesignInfoTool(BuiltinTool):
    name = "codesign_info"
    description = (
        "Signing information as JSON: `identities` (valid code-signing identities, macOS), `profiles` "
        "(provisioning profiles: the app's embedded one with app_path, else the installed ones and those in "
        "the workspace; name, team, App ID, kind, expiry, devices, certificates, entitlements), or "
        "`entitlements` (of a signed app on macOS; elsewhere of its embedded profile and the project's "
        ".entitlements files)."
    )
    effect = ToolEffect.of("read", path_args=("app_path",))
    input_schema = schema({
        "query": {"type": "string", "enum": ["identities", "profiles", "entitlements"],
                  "description": "What signing information to retrieve"},
        "app_path": string("Path to .app bundle (for entitlements query)"),
        "team_id": string("Filter by team ID"),
    }, ["query"])

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        query = args["query"]
        app = _app(ctx, args["app_path"]) if args.get("app_path") else None
        if query == "identities":
            from aiagent.agent.tools.apple.invoke import on_macos

            if not on_macos():
                raise ToolError("codesign_info identities needs macOS (security find-identity); "
                                "use query=profiles to see the certificates the profiles allow")
            found = [i for i in await identities() if not args.get("team_id") or args["team_id"] in i["name"]]
            return json.dumps({"identities": found}, indent=1)
        if query == "profiles":
            found, errors = await profiles(ctx, app, args.get("team_id"))
            return json.dumps({"profiles": [_public(p) for p in found], "errors": errors}, indent=1, default=str)
        return json.dumps(await entitlements(ctx, app), indent=1, default=str)


async def entitlements(ctx: ToolContext, app: Path | None) -> dict[str, Any]:

    out: dict[str, Any] = {}
    if app is not None and find("codesign"):
        ran = await run("codesign", ["-d", "--entitlements", "-", "--xml", str(app)], cwd=app.parent, timeout=TIMEOUT)
        text = ran.stdout[ran.stdout.find("<?xml"):] if "<?xml" in ran.stdout else ""
        try:
            out["signed"] = plistlib.loads(text.encode()) if text else {}
        except ValueError as err:
            out["signed_error"] = f"codesign printed no readable entitlements: {err}"
    if app is not None:
        found, errors = await profiles(ctx, app, None)
        out["profile"] = found[0]["entitlements"] if found else None
        if errors:
            out["errors"] = errors
    out["files"] = await in_thread(_entitlement_files, ctx)
    return out


def _entitlement_files(ctx: ToolContext) -> dict[str, Any]:
    root = resolve_path(ctx, ".")
    out: dict[str, Any] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        for name in files:
            if name.endswith(".entitlements") and len(out) < 50:
                path = Path(folder, name)
                out[display_path(ctx, path)] = read_entitlements(path)
    return out


def read_entitlements(path: Path) -> Any:
    try:
        data = plistlib.loads(path.read_bytes()[:1024 * 1024])
    except (OSError, ValueError, plistlib.InvalidFileException) as err:
        return {"error": f"{path.name}: not a valid property list: {err}"}
    return data if isinstance(data, dict) else {"error": f"{path.name}: not a dictionary"}


# -- verify ------------------------------------------------------------------------------

DISPLAY_KEYS = {"Authority", "Identifier", "Format", "TeamIdentifier", "Timestamp", "Signed Time",
                "Runtime Version", "Signature size", "Info.plist entries", "Sealed Resources version"}


def parse_display(text: str) -> dict[str, Any]:
    """``codesign -dv --verbose=4`` lines (``Key=value``) -> a dict; Authority as a list."""
    out: dict[str, Any] = {"authority": []}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if key == "CodeDirectory v":
            out["flags"] = re.findall(r"flags=0x[0-9a-f]+\(([^)]*)\)", value)[:1]
        if not sep or key not in DISPLAY_KEYS:
            continue
        if key == "Authority":
            out["authority"].append(value)
        else:
            out[key.lower().replace(" ", "_").replace(".", "")] = value
    return out


def diagnose(text: str) -> list[dict[str, str]]:
    """Known signing failures in ``text``: what each means and how to fix it."""
    out: list[dict[str, str]] = []
    for line in text.splitlines():
        for rule in error_patterns():
            if re.search(rule["match"], line, re.I) and all(d["id"] != rule["id"] for d in out):
                out.append({"id": rule["id"], "line": line.strip()[:300], "problem": rule["problem"], "fix": rule["fix"]})
    return out


class CodesignVerifyTool(BuiltinTool):
    name = "codesign_verify"
    description = ("Verifies an app's code signature (`codesign --verify --strict`, macOS) and returns JSON: "
                   "valid or not, identifier, team, authorities, flags, and what a failure means.")
    effect = ToolEffect.of("read", path_args=("app_path",))
    input_schema = schema({
        "app_path": string("Path to .app bundle to verify"),
        "deep": {"type": "boolean", "description": "Verify all nested code (frameworks, plugins)", "default": True},
    }, ["app_path"])

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:

        app = _app(ctx, args["app_path"])
        need("codesign")
        flags = ["--verify", "--strict", "--verbose=4"] + (["--deep"] if args.get("deep", True) else [])
        verified = await run("codesign", [*flags, str(app)], cwd=app.parent, timeout=TIMEOUT)
        shown = await run("codesign", ["-dv", "--verbose=4", str(app)], cwd=app.parent, timeout=TIMEOUT)
        text = verified.stderr + verified.stdout
        result: dict[str, Any] = {"app": display_path(ctx, app), "valid": verified.exit_code == 0,
                                  **parse_display(shown.stderr + shown.stdout)}
        if verified.exit_code != 0:
            result["errors"] = [ln.strip() for ln in text.splitlines() if ln.strip()][-10:]
            result["diagnosis"] = diagnose(text)
        return ToolResult(json.dumps(result, indent=1), is_error=verified.exit_code != 0)


class CodesignDoctorTool(BuiltinTool):
    name = "codesign_doctor"
    description = (
        "Explains why signing fails: checks a provisioning profile against the bundle id, entitlements, team, "
        "device and (on macOS) the keychain's identities, and explains known lines of a signing error log. "
        "Without arguments it uses the first app target of the project and the profiles it can find."
    )
    effect = ToolEffect.of("read", path_args=("profile_path", "entitlements_path"))
    input_schema = schema({
        "profile_path": string("A .mobileprovision / .provisionprofile (default: every profile found)."),
        "bundle_id": string("The app's bundle identifier (default: PRODUCT_BUNDLE_IDENTIFIER of the project)."),
        "entitlements_path": string("The app's .entitlements file (default: CODE_SIGN_ENTITLEMENTS)."),
        "team_id": string("The team the app is signed for (default: DEVELOPMENT_TEAM)."),
        "device_udid": string("A device the build must run on (development / ad-hoc profiles)."),
        "build_log": string("Text of the failing build's signing error lines, to explain."),
        "check_identities": boolean("Also match the profile's certificates with the keychain (macOS; default true)."),
    })

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        from aiagent.agent.tools.apple.doctor import run_doctor

        return json.dumps(await run_doctor(ctx, args), indent=1, default=str)


TOOLS = [CodesignInfoTool, CodesignVerifyTool, CodesignDoctorTool]
