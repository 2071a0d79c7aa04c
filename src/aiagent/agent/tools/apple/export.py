"""``xcode_export`` (FR-6.9): ``xcodebuild -exportArchive``, then optionally notarisation
(``xcrun notarytool submit --wait``) and stapling (``xcrun stapler staple``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.buildlog import BuildLog
from aiagent.agent.tools.apple.commands import last_line, run_small, run_streamed
from aiagent.agent.tools.apple.gating import GatedTool
from aiagent.agent.tools.apple.schemas import load_schema
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError, ToolResult

NOTARY_TIMEOUT = 3600.0
SUBMITTABLE = (".zip", ".pkg", ".dmg")


class XcodeExportTool(GatedTool):
    name = "xcode_export"
    description = ("Export an .xcarchive for distribution (xcodebuild -exportArchive with an "
                   "ExportOptions.plist); for macOS apps optionally notarise (notarytool submit --wait, "
                   "with a stored keychain profile) and staple the ticket.")
    effect = ToolEffect.of("execute", "write", "network",
                           path_args=("archive_path", "export_options_plist", "export_path"))
    input_schema = load_schema("xcode_export.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        archive = _existing(ctx, args, "archive_path", ".xcarchive", folder=True)
        options = _existing(ctx, args, "export_options_plist", ".plist", folder=False)
        out = resolve_path(ctx, str(args.get("export_path") or "build/export"))
        log = BuildLog(ctx.workspace)
        argv = ["xcodebuild", "-exportArchive", "-archivePath", str(archive),
                "-exportOptionsPlist", str(options), "-exportPath", str(out)]
        finished = await run_streamed(argv, ctx, ctx.workspace, log)
        report = log.report()
        ok = finished.exit_code == 0 and not report["errors"]
        result: dict[str, Any] = {"status": "succeeded" if ok else "failed", "export_path": str(out),
                                  "exit_code": finished.exit_code, **report}
        if ok:
            result["artifacts"] = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
        if ok and args.get("notarize"):
            result["notarization"] = await _notarize(ctx, args, out)
            ok = result["notarization"].get("status") == "Accepted"
            result["status"] = "succeeded" if ok else "failed"
        return ToolResult(json.dumps(result, indent=1, ensure_ascii=False), is_error=not ok)


def _existing(ctx: ToolContext, args: dict[str, Any], key: str, suffix: str, folder: bool) -> Path:
    path = resolve_path(ctx, str(args[key]))
    if path.suffix != suffix or not (path.is_dir() if folder else path.is_file()):
        raise ToolError(f"{key} {args[key]}: no such {suffix} {'bundle' if folder else 'file'}")
    return path


async def _notarize(ctx: ToolContext, args: dict[str, Any], out: Path) -> dict[str, Any]:
    profile = str(args.get("keychain_profile") or "")
    if not profile or profile.startswith("-"):
        raise ToolError("notarize needs keychain_profile: the name saved with "
                        "`xcrun notarytool store-credentials NAME`")
    target, upload = await _upload_file(ctx, out)
    argv = ["xcrun", "notarytool", "submit", str(upload), "--keychain-profile", profile,
            "--wait", "--output-format", "json"]
    code, stdout, stderr = await run_small(argv, ctx.workspace, timeout=NOTARY_TIMEOUT)
    try:
        answer = json.loads(stdout)
    except json.JSONDecodeError:
        return {"status": "error", "message": last_line(stderr or stdout), "exit_code": code}
    result = {k: answer.get(k) for k in ("id", "status", "message") if k in answer}
    if result.get("status") != "Accepted":
        result["hint"] = f"read why with: xcrun notarytool log {answer.get('id', 'ID')} --keychain-profile {profile}"
        return result
    if args.get("staple", True):
        code, stdout, stderr = await run_small(["xcrun", "stapler", "staple", str(target)], ctx.workspace)
        result["stapled"] = code == 0
        if code != 0:
            result["staple_error"] = last_line(stderr or stdout)
    return result


async def _upload_file(ctx: ToolContext, out: Path) -> tuple[Path, Path]:
    """What to staple and what to upload: a .pkg/.dmg as is, an .app zipped with ditto."""
    items = sorted(out.iterdir()) if out.is_dir() else []
    for item in items:
        if item.suffix in SUBMITTABLE:
            return item, item
    app = next((i for i in items if i.suffix == ".app"), None)
    if app is None:
        raise ToolError(f"nothing to notarise in {out}: no .app, .pkg, .dmg or .zip "
                        "(iOS apps are not notarised; upload them to App Store Connect)")
    upload = app.with_suffix(".zip")
    code, stdout, stderr = await run_small(["ditto", "-c", "-k", "--keepParent", str(app), str(upload)], ctx.workspace)
    if code != 0:
        raise ToolError(f"ditto could not zip {app.name}: {last_line(stderr or stdout)}")
    return app, upload
