"""``aiagent skill create``: a working skill folder, with a test, from a template."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

TEMPLATES = {
    ("tool", "starlark"): "tool-starlark",
    ("tool", "process"): "tool-process",
    ("tool", "python"): "tool-python",
    ("prompt", "starlark"): "prompt",
    ("workflow", "starlark"): "workflow",
    ("security-rule", "starlark"): "security-rule",
    ("transform", "starlark"): "transform",
}


class ScaffoldError(Exception):
    exit_code = 2


def create(name: str, kind: str, backend: str, target: Path, description: str = "") -> list[Path]:
    """Write the template for (kind, backend) into ``target``; return the files written."""
    key = TEMPLATES.get((kind, backend)) or (TEMPLATES.get((kind, "starlark")) if kind == "prompt" else None)
    if key is None:
        backends = sorted(b for k, b in TEMPLATES if k == kind)
        raise ScaffoldError(f"--backend {backend}: a {kind} skill can use {', '.join(backends)}")
    if target.exists() and any(target.iterdir()):
        raise ScaffoldError(f"{target}: already exists and is not empty")
    values = {
        "__NAME__": name,
        "__DESCRIPTION__": description or f"Describe what {name} does and when to use it",
        "__TOOL__": name.replace("-", "_"),
        "__RULE__": name.upper().replace("-", "_"),
    }
    root = resources.files("aiagent.agent.skills").joinpath(f"templates/{key}")
    written: list[Path] = []
    for source, rel in _walk(root, ""):
        text = source.read_text("utf-8")
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        out = target / (rel[:-4] if rel.endswith(".py.txt") else rel)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        written.append(out)
    return written


def _walk(node: Any, prefix: str) -> list[tuple[Any, str]]:
    found: list[tuple[Any, str]] = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            found += _walk(child, rel + "/")
        else:
            found.append((child, rel))
    return found
