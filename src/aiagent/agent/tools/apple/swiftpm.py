"""Swift Package Manager tools (FR-6.4; they run wherever ``swift`` is on PATH, Linux too):
``swift_build``, ``swift_test``, ``swift_resolve``, ``swift_add_dep``, ``swift_remove_dep``.

Build and test output is parsed (:mod:`aiagent.agent.tools.apple.swift_output`) into errors,
warnings, linker errors and test results; the manifest edits are the targeted ones of
:mod:`aiagent.agent.tools.apple.manifest_edit`, written atomically, with the diff in the result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiagent.agent.tools import textio
from aiagent.agent.tools.apple import swift_output
from aiagent.agent.tools.apple.invoke import run
from aiagent.agent.tools.apple.manifest import ManifestError
from aiagent.agent.tools.apple.manifest_edit import add_dependency, remove_dependency
from aiagent.agent.tools.files import save
from aiagent.agent.tools.tooldef import BuiltinTool, in_thread, schema, string
from aiagent.agent.tools.workspace import display_path, open_parent, resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError, ToolResult

BUILD_TIMEOUT = 1800.0
RESOLVE_TIMEOUT = 600.0
TAIL_LINES = 30
_ARG = {"type": "string"}
BUILD_SCHEMA = schema({
    "package_path": {"type": "string", "description": "Path to directory containing Package.swift",
                     "default": "."},
    "configuration": {"type": "string", "enum": ["debug", "release"], "default": "debug"},
    "target": string("Specific target to build/test (omit for all)"),
    "extra_args": {"type": "array", "items": _ARG},
})


def package_dir(ctx: ToolContext, args: dict[str, Any]) -> Path:
    folder = resolve_path(ctx, args.get("package_path") or ".", field="package_path")
    if folder.name == "Package.swift":
        folder = folder.parent
    if not (folder / "Package.swift").is_file():
        raise ToolError(f"package_path {args.get('package_path') or '.'}: no Package.swift there")
    return folder


def _extra(args: dict[str, Any]) -> list[str]:
    extra = [str(a) for a in args.get("extra_args") or []]
    if any("\x00" in a for a in extra):
        raise ToolError("extra_args must not contain NUL bytes")
    return extra


async def _swift(ctx: ToolContext, folder: Path, argv: list[str], timeout: float) -> dict[str, Any]:

    ran = await run("swift", argv, cwd=folder, timeout=timeout)
    text = ran.stdout + "\n" + ran.stderr
    parsed = swift_output.parse(text)
    result: dict[str, Any] = {"command": "swift " + " ".join(argv), "package": display_path(ctx, folder),
                              "exit_code": ran.exit_code, "success": ran.exit_code == 0,
                              "summary": swift_output.summary(parsed, ran.exit_code), **parsed}
    if ran.exit_code != 0 and not (parsed["errors"] or parsed["linker_errors"] or parsed.get("tests")):
        result["output_tail"] = [ln for ln in text.splitlines() if ln.strip()][-TAIL_LINES:]
    if ran.truncated:
        result["note"] = "output was longer than the limit; the end was dropped"
    return result


def _result(result: dict[str, Any]) -> ToolResult:
    return ToolResult(json.dumps(result, indent=1, ensure_ascii=False), is_error=not result["success"])


class _SwiftRunTool(BuiltinTool):
    """``swift build`` and ``swift test``: the verb, and the flag that narrows them to ``target``."""

    verb = ""
    target_flag = ""
    effect = ToolEffect.of("read", "write", "execute", path_args=("package_path",))
    input_schema = BUILD_SCHEMA

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        folder = package_dir(ctx, args)
        argv = [self.verb, "-c", args.get("configuration") or "debug"]
        if args.get("target"):
            argv += [self.target_flag, str(args["target"])]
        return _result(await _swift(ctx, folder, argv + _extra(args), BUILD_TIMEOUT))


class SwiftBuildTool(_SwiftRunTool):
    name = "swift_build"
    description = ("Builds a Swift package (`swift build`) and returns JSON: compiler errors and warnings "
                   "(file, line, column, message), linker errors and a one-line summary.")
    verb = "build"
    target_flag = "--target"


class SwiftTestTool(_SwiftRunTool):
    name = "swift_test"
    description = ("Runs a Swift package's tests (`swift test`, XCTest and Swift Testing) and returns JSON: "
                   "build errors, each failed test with its failure messages and locations, counts.")
    verb = "test"
    target_flag = "--filter"


class SwiftResolveTool(BuiltinTool):
    name = "swift_resolve"
    description = ("Resolves a Swift package's dependencies (`swift package resolve`) and returns JSON "
                   "with the pinned versions from Package.resolved.")
    effect = ToolEffect.of("read", "write", "execute", "network", path_args=("package_path",))
    input_schema = schema({"package_path": {"type": "string", "default": "."}})

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        folder = package_dir(ctx, args)
        result = await _swift(ctx, folder, ["package", "resolve"], RESOLVE_TIMEOUT)
        result["pins"] = await in_thread(read_pins, folder)
        return _result(result)


def read_pins(folder: Path) -> list[dict[str, Any]] | str:
    path = folder / "Package.resolved"
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return f"Package.resolved: cannot read: {err}"
    pins = data.get("pins") or data.get("object", {}).get("pins") or []
    return [{"identity": p.get("identity") or p.get("package"),
             "location": p.get("location") or p.get("repositoryURL"),
             **{k: v for k, v in (p.get("state") or {}).items() if v}} for p in pins if isinstance(p, dict)]


class SwiftAddDepTool(BuiltinTool):
    name = "swift_add_dep"
    description = ("Adds a package dependency to Package.swift (a targeted edit of the dependencies: array; "
                   "with `target` and `product` also the target's dependencies), writes it atomically and "
                   "returns the diff. Refuses manifests whose shape it cannot edit safely.")
    effect = ToolEffect.of("read", "write", path_args=("package_path",))
    input_schema = schema({
        "url": string("Git URL of the Swift package (e.g., 'https://github.com/vapor/vapor.git')"),
        "version": string("Version requirement (e.g., '4.0.0', 'from: \"4.0.0\"', "
                          "'.upToNextMajor(from: \"4.0.0\")')"),
        "package_path": {"type": "string", "default": "."},
        "target": string("Also add the product to this target's dependencies."),
        "product": string("The library product to add to `target` (e.g. 'Logging' for swift-log)."),
    }, ["url"])

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:

        if not args.get("version"):
            raise ToolError("version: give a version requirement, e.g. '1.2.0' or 'branch: \"main\"'")
        return await _edit(ctx, args, lambda p, d: add_dependency(
            p, d, str(args["url"]), str(args["version"]), args.get("target"), args.get("product")))


class SwiftRemoveDepTool(BuiltinTool):
    name = "swift_remove_dep"
    description = ("Removes a package dependency from Package.swift (by URL or package identity) and every "
                   "target's use of its products; writes atomically and returns the diff.")
    effect = ToolEffect.of("read", "write", path_args=("package_path",))
    input_schema = schema({
        "package": string("The dependency's URL or identity (e.g. 'swift-log')."),
        "package_path": {"type": "string", "default": "."},
    }, ["package"])

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:

        return await _edit(ctx, args, lambda p, d: remove_dependency(p, d, str(args["package"])))


async def _edit(ctx: ToolContext, args: dict[str, Any], change: Any) -> str:
    return await in_thread(_edit_sync, ctx, package_dir(ctx, args) / "Package.swift", change)


def _edit_sync(ctx: ToolContext, path: Path, change: Any) -> str:

    shown = display_path(ctx, path)
    with textio.os_errors(path), open_parent(ctx, path) as parent:
        current = textio.read_at(parent)
        if current is None:
            raise ToolError(f"file not found: {shown}")
        try:
            new = change(path, current.text.encode("utf-8")).decode("utf-8")
        except ManifestError as err:
            raise ToolError(f"{shown}: not changed: {str(err).removeprefix('Package.swift: ')}") from None
        save(ctx, parent, current, new)
    return f"Updated {shown}\n" + textio.unified_diff(current.text, new, shown)


TOOLS = [SwiftBuildTool, SwiftTestTool, SwiftResolveTool, SwiftAddDepTool, SwiftRemoveDepTool]
