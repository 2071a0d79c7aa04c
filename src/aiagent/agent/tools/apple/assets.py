"""Asset catalogs (FR-6.7): image sets, app icons (missing sizes per idiom, legacy per-size
and Xcode 14+ single-size sets), colour sets, and assets never referenced from code,
storyboards or xibs; the tool ``xcode_assets``.

``Contents.json`` files come from the repository: each is size-capped, and one that does not
parse is reported by name while the rest of the catalog is still read.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.paths import shown_path
from aiagent.agent.tools.tooldef import BuiltinTool, in_thread, schema, string
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError

MAX_JSON_BYTES = 1024 * 1024
MAX_SOURCE_FILES = 5000
MAX_SOURCE_BYTES = 2 * 1024 * 1024
MAX_CATALOG_ENTRIES = 20000
SOURCE_SUFFIXES = {".swift", ".m", ".mm", ".h", ".storyboard", ".xib", ".plist", ".strings"}
SKIP_DIRS = {".git", ".build", "build", "DerivedData", "node_modules", "Pods", "Carthage", ".swiftpm"}
KINDS = {".imageset": "image", ".appiconset": "app_icon", ".colorset": "color",
         ".symbolset": "symbol", ".dataset": "data"}
ALWAYS_USED = {"AppIcon", "AccentColor"}


@lru_cache(maxsize=1)
def icon_sizes() -> dict[str, list[str]]:
    import yaml

    text = (Path(__file__).parent / "data" / "app_icons.yaml").read_text(encoding="utf-8")
    return dict(yaml.safe_load(text))


def read_json(path: Path, errors: list[str], root: Path) -> dict[str, Any] | None:
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            errors.append(f"{shown_path(path, root)}: larger than 1 MB")
            return None
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        errors.append(f"{shown_path(path, root)}: missing")
        return None
    except (OSError, ValueError) as err:
        errors.append(f"{shown_path(path, root)}: not valid JSON: {err}")
        return None
    if not isinstance(data, dict):
        errors.append(f"{shown_path(path, root)}: not a JSON object")
        return None
    return data


def read_catalog(catalog: Path, root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"path": shown_path(catalog, root), "images": [], "app_icons": [], "colors": [],
                           "other": [], "errors": []}
    stack: list[tuple[Path, str]] = [(catalog, "")]
    seen = 0
    while stack and seen < MAX_CATALOG_ENTRIES:
        folder, prefix = stack.pop()
        for child in sorted(folder.iterdir()):
            seen += 1
            if not child.is_dir() or child.is_symlink():
                continue
            kind = KINDS.get(child.suffix)
            if kind is None:  # a group folder; it may give its assets a namespace
                props = read_json(child / "Contents.json", [], root) or {}
                spaced = props.get("properties", {}).get("provides-namespace") is True
                stack.append((child, f"{prefix}{child.name}/" if spaced else prefix))
                continue
            contents = read_json(child / "Contents.json", out["errors"], root)
            if contents is not None:
                _add_asset(out, kind, prefix + child.stem, child, contents, root)
    return out


def _add_asset(out: dict[str, Any], kind: str, name: str, folder: Path,
               contents: dict[str, Any], root: Path) -> None:
    entries = [e for e in contents.get("images", []) if isinstance(e, dict)]
    missing_files = [str(e["filename"]) for e in entries
                     if isinstance(e.get("filename"), str) and not (folder / e["filename"]).is_file()]
    if kind == "image":
        item: dict[str, Any] = {"name": name, "files": sum(1 for e in entries if e.get("filename"))}
        if missing_files:
            item["missing_files"] = missing_files
        if not item["files"]:
            item["problem"] = "no image file in the set"
        out["images"].append(item)
    elif kind == "app_icon":
        out["app_icons"].append({"name": name, **app_icon(entries, missing_files)})
    elif kind == "color":
        colors = [c for c in contents.get("colors", []) if isinstance(c, dict)]
        out["colors"].append({"name": name, "appearances": [_appearance(c) for c in colors]})
    else:
        out["other"].append({"name": name, "kind": kind})


def _appearance(color: dict[str, Any]) -> str:
    looks = [a.get("value") for a in color.get("appearances", []) if isinstance(a, dict)]
    return "+".join(str(v) for v in looks) or "any"


def app_icon(entries: list[dict[str, Any]], missing_files: list[str]) -> dict[str, Any]:
    """Style, idioms and what is missing: sizes a per-size set lacks, entries without a file."""
    single = [e for e in entries if e.get("size") == "1024x1024" and e.get("idiom") == "universal"]
    unfilled = [_label(e) for e in entries if not e.get("filename") and not e.get("appearances")]
    if single:
        out: dict[str, Any] = {"style": "single-size", "platforms": sorted({str(e.get("platform", "?")) for e in single})}
        missing = [_label(e) for e in single if not e.get("filename") and not e.get("appearances")]
    else:
        idioms = sorted({str(e.get("idiom")) for e in entries if e.get("idiom")})
        out = {"style": "per-size", "idioms": idioms}
        have = {(str(e.get("idiom")), _size_key(e)) for e in entries if e.get("filename")}
        missing = [f"{idiom} {size.replace('@', 'pt@')}" for idiom in idioms
                   for size in icon_sizes().get(idiom, []) if (idiom, size) not in have]
        missing += [u for u in unfilled if u not in missing and _known(u)]
    if missing:
        out["missing_sizes"] = missing
    if missing_files:
        out["missing_files"] = missing_files
    return out


def _size_key(entry: dict[str, Any]) -> str:
    points = str(entry.get("size", "")).split("x")[0]
    return f"{points}@{entry.get('scale', '1x')}"


def _label(entry: dict[str, Any]) -> str:
    return f"{entry.get('idiom', '?')} {str(entry.get('size', '?')).split('x')[0]}pt@{entry.get('scale', '1x')}"


def _known(label: str) -> bool:
    idiom = label.split(" ", 1)[0]
    return idiom not in icon_sizes()


# -- references from code ----------------------------------------------------------------

STRING = re.compile(rb'"([^"\n\\]{1,200})"')
MEMBER = re.compile(rb"\.([A-Za-z_][A-Za-z0-9_]{0,100})\b")


def references(root: Path) -> tuple[set[str], set[str]]:
    """String literals and ``.member`` names in the project's sources (bounded)."""
    strings: set[str] = set()
    members: set[str] = set()
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".xcassets")]
        for name in files:
            path = Path(folder, name)
            if path.suffix not in SOURCE_SUFFIXES or count >= MAX_SOURCE_FILES:
                continue
            count += 1
            try:
                data = path.read_bytes()[:MAX_SOURCE_BYTES]
            except OSError:
                continue
            strings.update(m.decode("utf-8", "replace") for m in STRING.findall(data))
            members.update(m.decode() for m in MEMBER.findall(data))
    return strings, members


def generated_symbol(name: str) -> str:
    """The name Xcode 15+ generates for an asset (``hero-banner`` -> ``heroBanner``)."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", name.rsplit("/", 1)[-1]) if w]
    if not words:
        return name
    first = words[0][0].lower() + words[0][1:]
    return first + "".join(w[0].upper() + w[1:] for w in words[1:])


def unused(catalogs: list[dict[str, Any]], root: Path) -> list[str]:
    strings, members = references(root)
    out = []
    for catalog in catalogs:
        for kind in ("images", "colors"):
            for asset in catalog[kind]:
                name = asset["name"]
                if name in ALWAYS_USED or name.rsplit("/", 1)[-1] in strings or name in strings:
                    continue
                if generated_symbol(name) in members:
                    continue
                out.append(f"{catalog['path']}: {name}")
    return out


def find_catalogs(root: Path) -> list[Path]:
    if root.suffix == ".xcassets":
        return [root]
    found = []
    for folder, dirs, _files in os.walk(root):
        keep = []
        for d in sorted(dirs):
            if d.endswith(".xcassets"):
                found.append(Path(folder, d))
            elif d not in SKIP_DIRS and not d.startswith("."):
                keep.append(d)
        dirs[:] = keep
    return found


def report(root: Path, base: Path, sources: Path) -> dict[str, Any]:
    catalogs = [read_catalog(c, base) for c in find_catalogs(root)]
    return {"catalogs": catalogs, "unused": unused(catalogs, sources)}



class XcodeAssetsTool(BuiltinTool):
    name = "xcode_assets"
    description = (
        "Reads the asset catalogs (.xcassets) under a folder and returns JSON: image sets, app icons "
        "(the sizes missing per idiom, per-size and single-size sets), colour sets, broken "
        "Contents.json files, and image/colour assets never referenced from Swift, Objective-C, "
        "storyboards or xibs (by name or by Xcode's generated symbol)."
    )
    effect = ToolEffect.of("read", path_args=("path",))
    input_schema = schema({"path": string("A folder or .xcassets catalog (default: the workspace).")})

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        root = resolve_path(ctx, args.get("path") or ".", reading=True)
        if not root.exists():
            raise ToolError(f"path {args.get('path')}: no such file or folder")
        base = resolve_path(ctx, ".")
        sources = root.parent if root.suffix == ".xcassets" else root
        result = await in_thread(report, root, base, sources)
        if not result["catalogs"]:
            raise ToolError(f"no .xcassets asset catalog under {args.get('path') or '.'}")
        return json.dumps(result, indent=1, ensure_ascii=False)


TOOLS = [XcodeAssetsTool]
