"""Project discovery (FR-6.1): ``.xcodeproj``, ``.xcworkspace`` and ``Package.swift`` under a
folder, each project's targets, configurations, platforms, build phases, dependencies and
package references (from ``project.pbxproj``), its schemes (from the ``.xcscheme`` files,
and from ``xcodebuild -list -json`` where Xcode is installed), and the tool
``xcode_project_info`` that returns all of it as JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.invoke import find, run
from aiagent.agent.tools.apple.manifest import summarize_manifest
from aiagent.agent.tools.apple.paths import shown_path
from aiagent.agent.tools.apple.pbxproj import ProjectError, read_project
from aiagent.agent.tools.apple.schemes import SchemeError, read_scheme, scheme_files
from aiagent.agent.tools.tooldef import BuiltinTool, boolean, in_thread, schema, string
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError

MAX_DEPTH = 6
MAX_DIRS = 20000
SKIP_DIRS = {".git", ".build", "build", "DerivedData", "node_modules", "Pods", "Carthage",
             ".swiftpm", "xcuserdata", ".venv"}
XCODEBUILD_TIMEOUT = 60.0


def find_projects(root: Path) -> dict[str, list[Path]]:
    """Projects, workspaces and packages under ``root`` (or ``root`` itself), bounded."""
    found: dict[str, list[Path]] = {"projects": [], "workspaces": [], "packages": []}
    if _classify(root, found):
        return found
    seen = 0
    base_depth = len(root.parts)
    for folder, dirs, files in os.walk(root):
        seen += 1
        here = Path(folder)
        if seen > MAX_DIRS or len(here.parts) - base_depth >= MAX_DEPTH:
            dirs[:] = []
        keep = []
        for name in sorted(dirs):
            if name in SKIP_DIRS or name.startswith("."):
                continue
            if not _classify(here / name, found):
                keep.append(name)
        dirs[:] = keep
        if "Package.swift" in files:
            found["packages"].append(here / "Package.swift")
    return found


def _classify(path: Path, found: dict[str, list[Path]]) -> bool:
    if path.suffix == ".xcodeproj" and path.is_dir():
        found["projects"].append(path)
        return True
    if path.suffix == ".xcworkspace" and path.is_dir():
        found["workspaces"].append(path)
        return True
    if path.name == "Package.swift" and path.is_file():
        found["packages"].append(path)
        return True
    return False


def describe_project(xcodeproj: Path, rel: Path) -> dict[str, Any]:

    out: dict[str, Any] = {"path": shown_path(xcodeproj, rel)}
    try:
        summary = read_project(xcodeproj / "project.pbxproj")
    except ProjectError as err:
        out["error"] = _relmsg(str(err), rel)
        summary = {}
    out.update({k: v for k, v in summary.items() if k != "path"})
    out["schemes"], errors = _schemes(xcodeproj, rel)
    ids = {t["id"] for t in summary.get("targets", [])}
    for scheme in out["schemes"]:
        for ref in scheme.get("build_targets", []) + scheme.get("test_targets", []):
            if ids and ref.get("target_id") and ref["target_id"] not in ids \
                    and ref.get("container", "").endswith(xcodeproj.name):
                errors.append(f"scheme {scheme['name']}: target {ref['target']} ({ref['target_id']}) "
                              "is not in the project")
    if errors:
        out["scheme_errors"] = errors
    return out


def _schemes(container: Path, rel: Path) -> tuple[list[dict[str, Any]], list[str]]:

    schemes, errors = [], []
    for path in scheme_files(container):
        try:
            schemes.append(read_scheme(path))
        except SchemeError as err:
            errors.append(_relmsg(str(err), rel))
    return schemes, errors


def describe_workspace(workspace: Path, rel: Path) -> dict[str, Any]:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import ParseError, fromstring

    out: dict[str, Any] = {"path": shown_path(workspace, rel), "projects": []}
    data = workspace / "contents.xcworkspacedata"
    try:
        root = fromstring(data.read_bytes()[:4 * 1024 * 1024])
        out["projects"] = [(ref.get("location") or "").split(":", 1)[-1] for ref in root.iter("FileRef")]
    except (OSError, ParseError, DefusedXmlException) as err:
        out["error"] = f"{shown_path(data, rel)}: cannot read: {err}"
    out["schemes"], errors = _schemes(workspace, rel)
    if errors:
        out["scheme_errors"] = errors
    return out


def describe_package(manifest: Path, rel: Path) -> dict[str, Any]:

    return {"path": shown_path(manifest, rel), **summarize_manifest(manifest)}


async def xcodebuild_list(container: Path) -> dict[str, Any] | None:
    """``xcodebuild -list -json`` for a project/workspace, or None without xcodebuild."""

    if find("xcodebuild") is None:
        return None
    flag = "-workspace" if container.suffix == ".xcworkspace" else "-project"
    try:
        ran = await run("xcodebuild", ["-list", "-json", flag, container.name],
                        cwd=container.parent, timeout=XCODEBUILD_TIMEOUT)
    except ToolError as err:
        return {"error": str(err)}
    if ran.exit_code != 0:
        lines = [ln for ln in (ran.stderr + ran.stdout).splitlines() if ln.strip()]
        return {"error": f"xcodebuild -list failed (exit {ran.exit_code}): {'; '.join(lines[-2:])}"}
    try:
        data = json.loads(ran.stdout[ran.stdout.find("{"):])
    except ValueError:
        return {"error": "xcodebuild -list -json printed no JSON"}
    listed: dict[str, Any] = data.get("project") or data.get("workspace") or data
    return listed



def _relmsg(message: str, root: Path) -> str:
    return message.replace(f"{root}{os.sep}", "")


class XcodeProjectInfoTool(BuiltinTool):
    name = "xcode_project_info"
    description = (
        "Finds the Xcode projects, workspaces and Swift packages under a folder and returns JSON: "
        "targets (product type, platforms, deployment targets, build settings that matter, build "
        "phases, dependencies, package products), configurations, Swift package references, "
        "schemes (from xcshareddata/xcschemes, and xcodebuild -list where Xcode is installed) "
        "and Package.swift contents. Works on every platform."
    )
    effect = ToolEffect.of("read", path_args=("path",))  # runs only `xcodebuild -list`
    input_schema = schema({
        "path": string("A folder, .xcodeproj, .xcworkspace or Package.swift (default: the workspace)."),
        "scheme": string("Only this scheme (an error lists the schemes there are when it does not exist)."),
        "use_xcodebuild": boolean("Also ask `xcodebuild -list -json` where it is installed (default true)."),
    })

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        root = resolve_path(ctx, args.get("path") or ".", reading=True)
        if not root.exists():
            raise ToolError(f"path {args.get('path')}: no such file or folder")
        base = resolve_path(ctx, ".")
        found = await in_thread(find_projects, root)
        if not any(found.values()):
            raise ToolError(f"no .xcodeproj, .xcworkspace or Package.swift under {args.get('path') or '.'}")
        result = await in_thread(_describe_all, found, base)
        if args.get("use_xcodebuild", True):
            for entry, path in _containers(result, found):
                listed = await xcodebuild_list(path)
                if listed is not None:
                    entry["xcodebuild"] = listed
        if args.get("scheme"):
            _only_scheme(result, str(args["scheme"]))
        return json.dumps(result, indent=1, ensure_ascii=False)


def _describe_all(found: dict[str, list[Path]], base: Path) -> dict[str, Any]:
    return {
        "projects": [describe_project(p, base) for p in found["projects"]],
        "workspaces": [describe_workspace(w, base) for w in found["workspaces"]],
        "packages": [describe_package(m, base) for m in found["packages"]],
    }


def _containers(result: dict[str, Any], found: dict[str, list[Path]]) -> list[tuple[dict[str, Any], Path]]:
    return list(zip(result["projects"], found["projects"], strict=True)) + \
        list(zip(result["workspaces"], found["workspaces"], strict=True))


def _only_scheme(result: dict[str, Any], name: str) -> None:
    known: list[str] = []
    for entry in result["projects"] + result["workspaces"]:
        names = [s["name"] for s in entry.get("schemes", [])]
        names += [s for s in entry.get("xcodebuild", {}).get("schemes", []) if isinstance(s, str)]
        known += names
        entry["schemes"] = [s for s in entry.get("schemes", []) if s["name"] == name]
    if name not in known:
        listed = ", ".join(sorted(set(known))) or "none (no shared schemes: share one in Xcode's Manage Schemes)"
        raise ToolError(f"scheme {name!r} does not exist; schemes: {listed}")


TOOLS = [XcodeProjectInfoTool]
