"""CoreData and SwiftData models (FR-6.13): the versions of each ``.xcdatamodeld`` (and the
current one from ``.xccurrentversion``), entities, attributes and relationships, and whether
going from one version to the next needs a migration, and whether Core Data's lightweight
(inferred) migration can do it; the tool ``xcode_data_model``.

Model files come from the repository: XML is read with ``defusedxml`` and size-capped.
"""

from __future__ import annotations

import json
import os
import plistlib
import re
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.paths import shown_path
from aiagent.agent.tools.apple.xmlfile import parse_xml
from aiagent.agent.tools.tooldef import BuiltinTool, in_thread, schema, string
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError

MAX_MODEL_BYTES = 8 * 1024 * 1024
SKIP_DIRS = {".git", ".build", "build", "DerivedData", "node_modules", "Pods", "Carthage"}


class ModelError(ValueError):
    """A model file cannot be read; the message names the file."""


def read_model(folder: Path, shown: str) -> dict[str, Any]:
    """Entities of one ``.xcdatamodel`` folder (its ``contents`` XML)."""

    contents = folder / "contents"
    root = parse_xml(contents, f"{shown}/contents", MAX_MODEL_BYTES, ModelError, say_missing=True)
    if root.tag != "model":
        raise ModelError(f"{shown}/contents: not a Core Data model (root element <{root.tag}>)")
    return {"entities": [_entity(e) for e in root.iter("entity")]}


def _entity(node: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": node.get("name"), "attributes": [], "relationships": []}
    for key, attr in (("parent", "parentEntity"), ("class", "representedClassName"),
                      ("renaming_id", "renamingIdentifier"), ("abstract", "isAbstract")):
        if node.get(attr):
            out[key] = node.get(attr)
    for attr in node.findall("attribute"):
        item = {"name": attr.get("name"), "type": attr.get("attributeType"),
                "optional": attr.get("optional") == "YES"}
        for key, xml in (("default", "defaultValueString"), ("renaming_id", "renamingIdentifier"),
                         ("transient", "transient")):
            if attr.get(xml):
                item[key] = attr.get(xml)
        out["attributes"].append(item)
    for rel in node.findall("relationship"):
        out["relationships"].append({
            "name": rel.get("name"), "destination": rel.get("destinationEntity"),
            "to_many": rel.get("toMany") == "YES", "optional": rel.get("optional") == "YES",
            "inverse": rel.get("inverseName"), "delete_rule": rel.get("deletionRule"),
            **({"renaming_id": rel.get("renamingIdentifier")} if rel.get("renamingIdentifier") else {}),
        })
    return out


def read_bundle(bundle: Path, root: Path) -> dict[str, Any]:
    """A ``.xcdatamodeld`` (versions, current version, migrations) or a lone ``.xcdatamodel``."""
    shown = shown_path(bundle, root)
    out: dict[str, Any] = {"path": shown, "versions": [], "errors": []}
    folders = [bundle] if bundle.suffix == ".xcdatamodel" else \
        sorted((p for p in bundle.iterdir() if p.suffix == ".xcdatamodel"), key=lambda p: _natural(p.stem))
    models = {}
    for folder in folders:
        try:
            models[folder.stem] = read_model(folder, shown_path(folder, root))
        except ModelError as err:
            out["errors"].append(str(err))
    out["current_version"] = _current(bundle, shown, out["errors"]) or (folders[-1].stem if folders else None)
    for name, model in models.items():
        out["versions"].append({"name": name, **model})
    names = list(models)
    out["migrations"] = [compare(a, models[a], b, models[b]) for a, b in zip(names, names[1:], strict=False)]
    return out


def _current(bundle: Path, shown: str, errors: list[str]) -> str | None:
    marker = bundle / ".xccurrentversion"
    if bundle.suffix != ".xcdatamodeld" or not marker.is_file():
        return None
    try:
        data = plistlib.loads(marker.read_bytes()[:MAX_MODEL_BYTES])
    except (OSError, ValueError, plistlib.InvalidFileException) as err:
        errors.append(f"{shown}/.xccurrentversion: not a valid plist: {err}")
        return None
    name = data.get("_XCCurrentVersionName") if isinstance(data, dict) else None
    return str(name).removesuffix(".xcdatamodel") if name else None


def compare(old_name: str, old: dict[str, Any], new_name: str, new: dict[str, Any]) -> dict[str, Any]:
    """What changed from ``old`` to ``new`` and whether lightweight migration can infer it."""
    changes: list[str] = []
    blockers: list[str] = []
    before = {e["name"]: e for e in old["entities"]}
    for entity in new["entities"]:
        source = _counterpart(before, entity)
        if source is None:
            changes.append(f"entity {entity['name']} added")
            continue
        if source["name"] != entity["name"]:
            changes.append(f"entity {source['name']} renamed to {entity['name']} (renamingIdentifier)")
        if source.get("parent") != entity.get("parent"):
            changes.append(f"entity {entity['name']}: parent {source.get('parent')} -> {entity.get('parent')}")
            blockers.append(f"{entity['name']}: the entity hierarchy changed; that needs a mapping model")
        _attributes(entity["name"], source, entity, changes, blockers)
        _relationships(entity["name"], source, entity, changes, blockers)
    changes += [f"entity {name} removed" for name in before]
    return {"from": old_name, "to": new_name, "migration_needed": bool(changes),
            "lightweight": not blockers, "changes": changes,
            "explanation": _explain(changes, blockers)}


def _counterpart(before: dict[str, dict[str, Any]], item: dict[str, Any]) -> dict[str, Any] | None:
    """Take the old version of ``item`` out of ``before``: by name, else by its renaming identifier."""
    return before.pop(item["name"], None) or before.pop(item.get("renaming_id") or "\0", None)


def _attributes(entity: str, old: dict[str, Any], new: dict[str, Any],
                changes: list[str], blockers: list[str]) -> None:
    before = {a["name"]: a for a in old["attributes"]}
    for attr in new["attributes"]:
        src = _counterpart(before, attr)
        where = f"{entity}.{attr['name']}"
        if src is None:
            changes.append(f"attribute {where} added")
            if not attr["optional"] and "default" not in attr and not attr.get("transient"):
                blockers.append(f"{where} is new, non-optional and has no default value: existing rows "
                                "would have no value (make it optional or give it a default)")
            continue
        if src["name"] != attr["name"]:
            changes.append(f"attribute {entity}.{src['name']} renamed to {attr['name']} (renamingIdentifier)")
        if src["type"] != attr["type"]:
            changes.append(f"attribute {where} type {src['type']} -> {attr['type']}")
            blockers.append(f"{where} changed type {src['type']} -> {attr['type']}: lightweight migration "
                            "cannot convert values; use a mapping model or a staged migration")
        if src["optional"] and not attr["optional"]:
            changes.append(f"attribute {where} optional -> required")
            if "default" not in attr:
                blockers.append(f"{where} became required without a default value")
        elif attr["optional"] and not src["optional"]:
            changes.append(f"attribute {where} required -> optional")
    changes += [f"attribute {entity}.{name} removed" for name in before]


def _relationships(entity: str, old: dict[str, Any], new: dict[str, Any],
                   changes: list[str], blockers: list[str]) -> None:
    before = {r["name"]: r for r in old["relationships"]}
    for rel in new["relationships"]:
        src = _counterpart(before, rel)
        where = f"{entity}.{rel['name']}"
        if src is None:
            changes.append(f"relationship {where} added")
            continue
        if src["destination"] != rel["destination"]:
            changes.append(f"relationship {where} destination {src['destination']} -> {rel['destination']}")
            blockers.append(f"{where} now points at {rel['destination']}: needs a mapping model")
        if src["to_many"] != rel["to_many"]:
            changes.append(f"relationship {where} {'to-one -> to-many' if rel['to_many'] else 'to-many -> to-one'}")
            if not rel["to_many"]:
                blockers.append(f"{where} went from to-many to to-one: rows with several objects "
                                "cannot be inferred; needs a mapping model")
    changes += [f"relationship {entity}.{name} removed" for name in before]


def _explain(changes: list[str], blockers: list[str]) -> str:
    if not changes:
        return "no schema change: the stores are compatible, no migration needed"
    if not blockers:
        return ("a migration is needed; lightweight (inferred) migration can do it: set "
                "NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption "
                "(NSPersistentContainer does by default)")
    return "a migration is needed and lightweight migration cannot infer it: " + "; ".join(blockers)


# -- SwiftData ---------------------------------------------------------------------------

SWIFTDATA_MODEL = re.compile(r"@Model\s+(?:(?:public|final|internal)\s+)*class\s+(\w+)[^{]*\{", re.S)
PROPERTY = re.compile(r"^\s*(?:(@Relationship|@Attribute|@Transient)[^\n]*?\s)?\s*(?:(?:public|private|"
                      r"internal|fileprivate)\s+)?var\s+(\w+)\s*:\s*([^=\n{]+)", re.M)


def swiftdata_models(path: Path, text: str, shown: str) -> list[dict[str, Any]]:
    out = []
    for match in SWIFTDATA_MODEL.finditer(text):
        body = _braced(text, match.end())
        props = [{"name": p.group(2), "type": p.group(3).strip(),
                  **({"macro": p.group(1)} if p.group(1) else {})} for p in PROPERTY.finditer(body)]
        out.append({"class": match.group(1), "file": shown, "properties": props})
    return out


def _braced(text: str, start: int) -> str:
    depth = 1
    for index in range(start, min(len(text), start + 200_000)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start:index]
    return text[start:start + 200_000]


def scan(root: Path, base: Path) -> dict[str, Any]:
    bundles: list[Path] = []
    swiftdata: list[dict[str, Any]] = []
    if root.suffix in (".xcdatamodeld", ".xcdatamodel"):
        bundles.append(root)
    for folder, dirs, files in os.walk(root) if not bundles else ():
        keep = []
        for d in sorted(dirs):
            if d.endswith((".xcdatamodeld", ".xcdatamodel")):
                bundles.append(Path(folder, d))
            elif d not in SKIP_DIRS and not d.startswith(".") and not d.endswith(".xcassets"):
                keep.append(d)
        dirs[:] = keep
        for name in files:
            if name.endswith(".swift"):
                path = Path(folder, name)
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")[:MAX_MODEL_BYTES]
                except OSError:
                    continue
                if "@Model" in text:
                    swiftdata += swiftdata_models(path, text, shown_path(path, base))
    return {"core_data": [read_bundle(b, base) for b in bundles], "swiftdata": swiftdata}


def _natural(name: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]



class XcodeDataModelTool(BuiltinTool):
    name = "xcode_data_model"
    description = (
        "Reads Core Data models (.xcdatamodeld: versions, current version, entities, attributes, "
        "relationships) and SwiftData @Model classes under a folder, and says for each pair of model "
        "versions whether a migration is needed and whether lightweight migration can do it, and why."
    )
    effect = ToolEffect.of("read", path_args=("path",))
    input_schema = schema({"path": string("A folder, .xcdatamodeld or .xcdatamodel (default: the workspace).")})

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        root = resolve_path(ctx, args.get("path") or ".", reading=True)
        if not root.exists():
            raise ToolError(f"path {args.get('path')}: no such file or folder")
        result = await in_thread(scan, root, resolve_path(ctx, "."))
        if not result["core_data"] and not result["swiftdata"]:
            raise ToolError(f"no .xcdatamodeld, .xcdatamodel or SwiftData @Model under {args.get('path') or '.'}")
        return json.dumps(result, indent=1, ensure_ascii=False)


TOOLS = [XcodeDataModelTool]
