"""``xcode_build``, ``xcode_test``, ``xcode_archive``, ``xcode_clean`` (FR-6.2): one
``xcodebuild`` call each, its output parsed while it runs (:mod:`.buildlog`), the model
given the structure as JSON. The destination, when not given, is chosen from the
simulators that exist (``xcrun simctl list -j``); a named simulator that does not exist,
or a scheme the project does not have, is an error result that says what does exist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple import simctl, xcresult
from aiagent.agent.tools.apple.buildlog import BuildLog
from aiagent.agent.tools.apple.commands import Finished, run_json, run_small, run_streamed
from aiagent.agent.tools.apple.gating import GatedTool
from aiagent.agent.tools.apple.schemas import load_schema
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError, ToolResult

CONTAINERS = {"workspace": ".xcworkspace", "project": ".xcodeproj"}


class XcodeTool(GatedTool):
    """One ``xcodebuild`` action; subclasses name it."""

    action = "build"
    simulator_default = True  # choose a simulator when no destination is given
    effect = ToolEffect.of("execute", "write", path_args=("workspace", "project"))
    input_schema = load_schema("xcodebuild.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        container = _container(args, ctx)
        destination, chosen = await self._destination(args, ctx)
        argv = self.command(args, ctx, container, destination)
        log = BuildLog(ctx.workspace)
        finished = await run_streamed(argv, ctx, ctx.workspace, log)
        result = _result(self.action, args, destination, chosen, log, finished)
        await self.enrich(result, args, ctx, container)
        return ToolResult(json.dumps(result, indent=1, ensure_ascii=False),
                          is_error=result["status"] != "succeeded")

    def command(self, args: dict[str, Any], ctx: ToolContext, container: list[str],
                destination: str | None) -> list[str]:
        scheme = str(args["scheme"])
        if not scheme.strip() or scheme.startswith("-"):
            raise ToolError(f"scheme {scheme!r}: not a scheme name")
        argv = ["xcodebuild", *container, "-scheme", scheme,
                "-configuration", str(args.get("configuration") or "Debug")]
        if destination:
            argv += ["-destination", destination]
        return [*argv, *self.extra(args, ctx), self.action]

    def extra(self, args: dict[str, Any], ctx: ToolContext) -> list[str]:
        return [str(a) for a in args.get("extra_args") or []]

    async def _destination(self, args: dict[str, Any], ctx: ToolContext) -> tuple[str | None, str | None]:
        given = args.get("destination")
        if given:
            if "Simulator" in str(given):
                simctl.check_destination(str(given), await simctl.devices(ctx.workspace))
            return str(given), None
        if not self.simulator_default:
            return self.default_destination(), None
        device = simctl.default_device(await simctl.devices(ctx.workspace))
        return f"platform={device.platform} Simulator,id={device.udid}", device.label()

    def default_destination(self) -> str | None:
        return None

    async def enrich(self, result: dict[str, Any], args: dict[str, Any], ctx: ToolContext,
                     container: list[str]) -> None:
        if any("does not contain a scheme named" in e["message"] for e in result["errors"]):
            result["available_schemes"] = await _schemes(ctx, container)
            result["summary"] += ("\nscheme " + repr(args["scheme"]) + " does not exist; use one of: "
                                  + ", ".join(result["available_schemes"] or ["(none found)"]))


class XcodeBuildTool(XcodeTool):
    name = "xcode_build"
    description = ("Build an Xcode project or workspace scheme with xcodebuild; returns the errors, "
                   "warnings (file, line, column, fix-its), linker and signing errors as JSON.")
    action = "build"


class XcodeTestTool(XcodeTool):
    name = "xcode_test"
    description = ("Run a scheme's tests with xcodebuild test; returns pass/fail/skip counts and each "
                   "failure (suite, test, message, file:line) as JSON. Add -only-testing:Target/Suite "
                   "in extra_args to run some; -resultBundlePath PATH also reads the .xcresult.")
    action = "test"

    async def enrich(self, result: dict[str, Any], args: dict[str, Any], ctx: ToolContext,
                     container: list[str]) -> None:
        await super().enrich(result, args, ctx, container)
        bundle = _option(args.get("extra_args") or [], "-resultBundlePath")
        if bundle:
            path = resolve_path(ctx, bundle)
            if path.exists():
                result["tests_from_log"] = result.pop("tests", None)
                result["tests"] = await read_result_bundle(path, ctx.workspace)


class XcodeArchiveTool(XcodeTool):
    name = "xcode_archive"
    description = ("Archive a scheme for distribution (xcodebuild archive; needs code signing). "
                   "Default destination generic/platform=iOS, archive at build/<scheme>.xcarchive "
                   "unless -archivePath is in extra_args.")
    action = "archive"
    simulator_default = False

    def default_destination(self) -> str | None:
        return "generic/platform=iOS"

    def extra(self, args: dict[str, Any], ctx: ToolContext) -> list[str]:
        extra = super().extra(args, ctx)
        if _option(extra, "-archivePath") is None:
            extra += ["-archivePath", str(ctx.workspace / "build" / f"{args['scheme']}.xcarchive")]
        return extra


class XcodeCleanTool(XcodeTool):
    name = "xcode_clean"
    description = "Remove a scheme's build products and intermediates (xcodebuild clean)."
    action = "clean"
    simulator_default = False


def _container(args: dict[str, Any], ctx: ToolContext) -> list[str]:
    given = [k for k in CONTAINERS if args.get(k)]
    if len(given) > 1:
        raise ToolError("give workspace or project, not both")
    if not given:
        return []
    key = given[0]
    path = resolve_path(ctx, str(args[key]))
    if path.suffix != CONTAINERS[key]:
        raise ToolError(f"{key} {args[key]}: expected a {CONTAINERS[key]} folder")
    if not path.is_dir():
        raise ToolError(f"{key} {args[key]}: no such {CONTAINERS[key]} in the workspace")
    return [f"-{key}", str(path)]


def _option(argv: list[str], flag: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return str(argv[i + 1])
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def _result(action: str, args: dict[str, Any], destination: str | None, chosen: str | None,
            log: BuildLog, finished: Finished) -> dict[str, Any]:
    report = log.report()
    ok = finished.exit_code == 0 and not finished.timed_out and not report["errors"]
    result: dict[str, Any] = {
        "status": "succeeded" if ok else "failed", "action": action, "scheme": args.get("scheme"),
        "destination": destination, "exit_code": finished.exit_code,
        "duration_seconds": round(finished.duration, 1),
    }
    if chosen:
        result["destination_chosen"] = f"{chosen} (no destination given)"
    result.update(report)
    if finished.timed_out or finished.reason == "canceled":
        result["summary"] = f"xcodebuild stopped: {finished.reason}\n" + result["summary"]
    elif not ok and not report["errors"] and not report.get("tests", {}).get("failed"):
        result["output_tail"] = finished.tail[-4000:]
    return result


async def _schemes(ctx: ToolContext, container: list[str]) -> list[str]:
    try:
        data = await run_json(["xcodebuild", "-list", "-json", *container], ctx.workspace)
    except ToolError:
        return []
    info = data.get("project") or data.get("workspace") or {} if isinstance(data, dict) else {}
    return [str(s) for s in info.get("schemes", [])]


async def read_result_bundle(path: Path, cwd: Path) -> dict[str, Any]:
    """Tests from an .xcresult: Xcode 16's ``test-results``, else the legacy record."""

    base = ["xcrun", "xcresulttool", "get"]
    code, out, _err = await run_small([*base, "test-results", "summary", "--path", str(path)], cwd)
    if code == 0:
        summary = json.loads(out)
        try:
            tests = await run_json([*base, "test-results", "tests", "--path", str(path)], cwd)
        except ToolError:
            tests = None
        return xcresult.from_summary(summary, tests)
    for legacy in (["object", "--legacy"], []):
        code, out, _err = await run_small([*base, *legacy, "--format", "json", "--path", str(path)], cwd)
        if code == 0:
            return xcresult.from_legacy(json.loads(out))
    return {"source": "xcresult", "error": f"xcresulttool could not read {path}"}
