"""Shared and user schemes (``*.xcscheme``, XML) of a project or workspace.

Scheme files come from the repository, so they are untrusted: they are parsed with
``defusedxml`` (no DTDs, entities or external references) and capped in size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.xmlfile import parse_xml

MAX_SCHEME_BYTES = 4 * 1024 * 1024
ACTIONS = ("BuildAction", "TestAction", "LaunchAction", "ProfileAction", "AnalyzeAction", "ArchiveAction")


class SchemeError(ValueError):
    """A scheme file cannot be read; the message names the file."""


def scheme_files(container: Path) -> list[Path]:
    """The ``.xcscheme`` files of a ``.xcodeproj`` or ``.xcworkspace`` (shared first)."""
    shared = sorted((container / "xcshareddata" / "xcschemes").glob("*.xcscheme"))
    users = sorted(container.glob("xcuserdata/*.xcuserdatad/xcschemes/*.xcscheme"))
    return shared + users


def read_scheme(path: Path) -> dict[str, Any]:

    root = parse_xml(path, str(path), MAX_SCHEME_BYTES, SchemeError,
                     refused_note=" (DTDs and entities are not read)")
    if root.tag != "Scheme":
        raise SchemeError(f"{path}: not a scheme (root element <{root.tag}>)")
    return _scheme(path, root)


def _scheme(path: Path, root: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": path.stem, "shared": "xcshareddata" in path.parts}
    build = root.find("BuildAction")
    out["build_targets"] = [_ref(e) for e in build.iter("BuildableReference")] if build is not None else []
    test = root.find("TestAction")
    if test is not None:
        out["test_targets"] = [
            {**_ref(t.find("BuildableReference")), "skipped": t.get("skipped") == "YES"}
            for t in test.iter("TestableReference") if t.find("BuildableReference") is not None
        ]
        plans = [p.get("reference", "") for p in test.iter("TestPlanReference")]
        if plans:
            out["test_plans"] = [p.removeprefix("container:") for p in plans]
    out["configurations"] = {
        action: node.get("buildConfiguration")
        for action in ACTIONS if (node := root.find(action)) is not None and node.get("buildConfiguration")
    }
    return out


def _ref(node: Any) -> dict[str, Any]:
    return {"target": node.get("BlueprintName"), "product": node.get("BuildableName"),
            "target_id": node.get("BlueprintIdentifier"),
            "container": (node.get("ReferencedContainer") or "").removeprefix("container:")}
