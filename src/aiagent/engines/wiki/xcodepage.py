"""The Xcode project structure page (FR-6.12): ``code-structure/xcode-project.md``, written
when the project holds an ``.xcodeproj`` or a ``Package.swift``.

Everything is read with the Apple tools' readers (:mod:`aiagent.agent.tools.apple.discovery`:
the strict ``project.pbxproj`` reader, ``defusedxml`` for schemes, tree-sitter for
``Package.swift``); nothing is evaluated or run. A project file that does not parse is said
on the page, and the rest of the wiki is written as usual. Every name from those files is
untrusted text: it reaches the page through :func:`cell`/:func:`code` and the typed graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.discovery import (
    describe_package,
    describe_project,
    find_projects,
)
from aiagent.engines.wiki.diagrams import Graph, fenced
from aiagent.engines.wiki.pages import Page, cell, code, table
from aiagent.engines.wiki.steering import Steering

PATH = "code-structure/xcode-project.md"
MAX_PROJECTS = 10
MAX_PACKAGES = 20
MAX_ROWS = 100


def xcode_pages(root: Path, diagram_format: str, skip: tuple[Path, ...] = (),
                steering: Steering | None = None) -> list[Page]:
    """The page, or nothing when ``root`` holds no Xcode project and no Swift package (the
    steering file's include/exclude patterns apply as they do to the scan)."""

    found = find_projects(root)
    wanted = _steered(root, steering or Steering())
    projects = [p for p in found["projects"] if not _under(p, skip) and wanted(p / "project.pbxproj")]
    packages = [p for p in found["packages"] if not _under(p, skip) and wanted(p)]
    projects, packages = projects[:MAX_PROJECTS], packages[:MAX_PACKAGES]
    if not projects and not packages:
        return []
    body = ["# Xcode project", "", "Targets, schemes, build phases and dependencies, read from "
            "`project.pbxproj`, the shared `.xcscheme` files and `Package.swift` (never run).", ""]
    for xcodeproj in projects:
        body += project_section(_read(describe_project, xcodeproj, root), diagram_format)
    for manifest in packages:
        body += package_section(_read(describe_package, manifest, root), diagram_format)
    return [Page(PATH, "Xcode project", "\n".join(body) + "\n")]


def _read(describe: Any, path: Path, root: Path) -> dict[str, Any]:
    """The reader's summary; a file shaped in a way the reader did not expect is an error
    on the page, never an exception that stops the wiki."""
    try:
        info: dict[str, Any] = describe(path, root)
    except (ValueError, TypeError, AttributeError, KeyError, RecursionError) as exc:
        rel = path.relative_to(root) if root in path.parents else path
        info = {"path": str(rel), "error": f"{rel}: cannot be read: {type(exc).__name__}"}
    return info


def _steered(root: Path, steering: Steering) -> Any:
    import pathspec

    include = pathspec.GitIgnoreSpec.from_lines(steering.include) if steering.include else None
    exclude = pathspec.GitIgnoreSpec.from_lines(steering.exclude)

    def wanted(path: Path) -> bool:
        rel = path.relative_to(root).as_posix() if root in path.parents else path.name
        return (include is None or include.match_file(rel)) and not exclude.match_file(rel)

    return wanted


def _under(path: Path, skip: tuple[Path, ...]) -> bool:
    return any(path == s or s in path.parents for s in skip)


def _names(items: list[Any]) -> str:
    return ", ".join(code(str(i)) for i in items if i) or ""


def project_section(info: dict[str, Any], fmt: str) -> list[str]:
    out = [f"## Project {code(str(info.get('path', '')))}", ""]
    if info.get("error"):
        out += [f"**The project file could not be read:** {cell(str(info['error']))}", "",
                "Targets, build phases and package references are unknown; the schemes below "
                "come from the scheme files.", ""]
    targets = [t for t in info.get("targets", []) if isinstance(t, dict)][:MAX_ROWS]
    if targets:
        out += ["### Targets", "", table(["target", "product type", "platforms", "deployment targets"], [
            [code(str(t.get("name"))), cell(str(t.get("product_type") or t.get("kind") or "")),
             cell(", ".join(t.get("platforms", []))),
             cell(", ".join(f"{k} {v}" for k, v in t.get("deployment_targets", {}).items()))]
            for t in targets]), ""]
        out += ["### Build phases", "", table(["target", "phases"], [
            [code(str(t.get("name"))), "; ".join(_phase(p) for p in t.get("build_phases", []))]
            for t in targets]), ""]
        out += ["### Target dependencies", "", table(["target", "depends on", "Swift package products"], [
            [code(str(t.get("name"))), _names(t.get("dependencies", [])), _names(t.get("package_products", []))]
            for t in targets]), "", fenced(target_graph(targets), fmt), ""]
    out += _schemes(info)
    packages = info.get("packages", [])
    if packages:
        out += ["### Swift packages", "", table(["package", "requirement"], [
            [cell(str(p.get("url") or p.get("local_path") or "")), cell(_requirement(p.get("requirement")))]
            for p in packages[:MAX_ROWS]]), ""]
    if info.get("problems"):
        out += ["### Problems in the project file", ""] + [f"- {cell(str(p))}" for p in info["problems"][:20]] + [""]
    return out


def _phase(phase: dict[str, Any]) -> str:
    kind = str(phase.get("kind", ""))
    name = phase.get("name")
    if kind == "run script":
        return f"run script {code(str(name))}" if name else "run script (unnamed)"
    files = phase.get("files", 0)
    return cell(f"{kind} ({files} file{'s' if files != 1 else ''})") + (f" {code(str(name))}" if name else "")


def _requirement(req: Any) -> str:
    if not isinstance(req, dict):
        return ""
    kind = str(req.get("kind", ""))
    rest = ", ".join(f"{k} {v}" for k, v in req.items() if k != "kind")
    return f"{kind} {rest}".strip()


def _schemes(info: dict[str, Any]) -> list[str]:
    schemes = info.get("schemes", [])
    out: list[str] = []
    if schemes:
        out += ["### Schemes", "", table(["scheme", "build targets", "test targets", "shared"], [
            [code(str(s.get("name"))), _names([r.get("target") for r in s.get("build_targets", [])]),
             _names([r.get("target") for r in s.get("test_targets", []) if not r.get("skipped")]),
             "yes" if s.get("shared") else "no"]
            for s in schemes[:MAX_ROWS]]), ""]
    if info.get("scheme_errors"):
        out += ["Scheme files that could not be read:", ""] + [f"- {cell(str(e))}" for e in info["scheme_errors"][:20]] + [""]
    return out


def target_graph(targets: list[dict[str, Any]]) -> Graph:
    """Targets and the package products they link; an arrow points at what is depended on."""
    graph = Graph("targets")
    for t in targets:
        graph.add_node(f"t:{t.get('name')}", str(t.get("name")), "targets")
    for t in targets:
        for product in t.get("package_products", []):
            graph.add_node(f"p:{product}", str(product), "Swift packages")
            graph.add_edge(f"t:{t.get('name')}", f"p:{product}")
        for dep in t.get("dependencies", []):
            key = f"t:{dep}" if f"t:{dep}" in graph.nodes else f"x:{dep}"
            if key not in graph.nodes:
                graph.add_node(key, str(dep))
            graph.add_edge(f"t:{t.get('name')}", key)
    return graph


def package_section(info: dict[str, Any], fmt: str) -> list[str]:
    name = info.get("name") or info.get("path")
    out = [f"## Swift package {code(str(name))}", "", f"Manifest: {code(str(info.get('path', '')))}", ""]
    if info.get("error"):
        return out + [f"**The manifest could not be read:** {cell(str(info['error']))}", ""]
    facts = [f"tools version {cell(str(info.get('tools_version') or '?'))}"]
    if info.get("platforms"):
        facts.append("platforms " + ", ".join(code(p) for p in info["platforms"]))
    out += ["; ".join(facts) + ".", ""]
    targets = [t for t in info.get("targets", []) if isinstance(t, dict)][:MAX_ROWS]
    if info.get("products"):
        out += ["### Products", "", table(["product", "kind"], [
            [code(str(p.get("name"))), cell(str(p.get("kind") or ""))] for p in info["products"][:MAX_ROWS]]), ""]
    if targets:
        out += ["### Targets", "", table(["target", "kind", "depends on"], [
            [code(str(t.get("name"))), cell(str(t.get("kind") or "")), _names(t.get("dependencies", []))]
            for t in targets]), "", fenced(package_graph(targets), fmt), ""]
    deps = info.get("dependencies", [])
    if deps:
        out += ["### Package dependencies", "", table(["package", "declared as"], [
            [cell(str(d.get("url") or d.get("path") or d.get("identity") or "")), code(str(d.get("text", "")))]
            for d in deps[:MAX_ROWS]]), ""]
    return out


def package_graph(targets: list[dict[str, Any]]) -> Graph:
    graph = Graph("package targets")
    names = {str(t.get("name")) for t in targets}
    for t in targets:
        graph.add_node(str(t.get("name")), str(t.get("name")))
    for t in targets:
        for dep in t.get("dependencies", []):
            label = _dep_name(str(dep))
            if label not in names and label not in graph.nodes:
                graph.add_node(label, label, "package products")
            graph.add_edge(str(t.get("name")), label)
    return graph


def _dep_name(text: str) -> str:
    """``.product(name: "X", package: "y")`` or ``"Core"`` → the name it depends on."""
    import re

    found = re.search(r'name:\s*"([^"]{1,100})"', text) or re.search(r'"([^"]{1,100})"', text)
    return found.group(1) if found else text[:60]
