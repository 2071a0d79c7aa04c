"""Entry points: console scripts, ``__main__`` blocks, ``main`` functions, package bins."""

from __future__ import annotations

import json
import tomllib

from aiagent.engines.wiki.model import CodeModel


def find_entry_points(model: CodeModel) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for item in model.build:
        if item.path.name == "pyproject.toml":
            found += _pyproject(item.path.read_bytes(), item.rel)
        elif item.path.name == "package.json":
            found += _package_json(item.path.read_bytes(), item.rel)
    for rel, fm in model.files.items():
        if fm.is_test:
            continue
        if rel.endswith("__main__.py"):
            fm.entry = "python -m"
        elif _main_guard(model, rel):
            fm.entry = "__main__ block"
        elif fm.language in ("go", "java", "csharp", "kotlin", "swift") and any(
                s.name.lower() == "main" for s in fm.symbols):
            fm.entry = "main function"
        if fm.entry:
            found.append((rel, fm.entry))
    return found


def _main_guard(model: CodeModel, rel: str) -> bool:
    if not rel.endswith(".py"):
        return False
    try:
        text = (model.root / rel).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "if __name__ == \"__main__\"" in text or "if __name__ == '__main__'" in text


def _pyproject(data: bytes, rel: str) -> list[tuple[str, str]]:
    try:
        scripts = tomllib.loads(data.decode("utf-8", "replace")).get("project", {}).get("scripts", {})
    except tomllib.TOMLDecodeError:
        return []
    if not isinstance(scripts, dict):
        return []
    return [(rel, f"console script `{k}` → `{v}`") for k, v in scripts.items() if isinstance(v, str)]


def _package_json(data: bytes, rel: str) -> list[tuple[str, str]]:
    try:
        manifest = json.loads(data)
    except ValueError:
        return []
    if not isinstance(manifest, dict):
        return []
    found = []
    bins = manifest.get("bin")
    if isinstance(bins, str):
        found.append((rel, f"bin → `{bins}`"))
    elif isinstance(bins, dict):
        found += [(rel, f"bin `{k}` → `{v}`") for k, v in bins.items() if isinstance(v, str)]
    if isinstance(manifest.get("main"), str):
        found.append((rel, f"main → `{manifest['main']}`"))
    return found
