"""The manifest (FR-3.7): content hashes per module, the hash of each module's public API, and
the versions that shaped the pages. A re-run compares and names the modules to re-analyse:
those whose files changed, and those whose dependencies' public API changed. The static
wiki is cheap and rewrites every page; the model passes re-ask only for these modules.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from aiagent import __version__
from aiagent.engines.wiki.cluster import Module
from aiagent.engines.wiki.model import CodeModel

MANIFEST = ".aiagent-wiki.json"
VERSION = 1
PROMPTS_VERSION = "static"  # the model passes put their prompts' version here


@dataclass(frozen=True, slots=True)
class Plan:
    changed: tuple[str, ...]  # module ids to (re-)analyse
    reused: tuple[str, ...]
    reason: str  # "first run", "--full", "format changed", "incremental"


def module_hashes(model: CodeModel, modules: list[Module]) -> dict[str, dict[str, str]]:
    out = {}
    for m in modules:
        content, api = hashlib.sha256(), hashlib.sha256()
        for rel in m.files:
            content.update(rel.encode() + b"\0" + (model.root / rel).read_bytes() + b"\0")
            for sym in model.files[rel].symbols:
                if sym.public:
                    api.update(f"{rel}:{sym.qualname}:{sym.signature}\n".encode())
        out[m.id] = {"content": content.hexdigest(), "api": api.hexdigest()}
    return out


def manifest_text(hashes: dict[str, dict[str, str]], fmt: str, prompts: str = PROMPTS_VERSION,
                  extra: dict[str, object] | None = None) -> str:
    """``prompts``: the model passes' prompts version; ``extra``: their stored answers and report."""

    data = {"version": VERSION, "generator": __version__, "prompts": prompts, "format": fmt,
            "modules": hashes, **(extra or {})}
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def load_previous(output: Path) -> dict[str, object] | None:
    file = output / MANIFEST
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == VERSION else None


def plan(previous: dict[str, object] | None, hashes: dict[str, dict[str, str]], modules: list[Module],
         fmt: str, full: bool, prompts: str = PROMPTS_VERSION) -> Plan:
    ids = tuple(m.id for m in modules)
    if full:
        return Plan(ids, (), "--full")
    if previous is None:
        return Plan(ids, (), "first run")
    if previous.get("prompts") != prompts or previous.get("format") != fmt:
        return Plan(ids, (), "prompts or format changed")
    old = previous.get("modules")
    old = old if isinstance(old, dict) else {}
    api_changed = {i for i in ids if not isinstance(old.get(i), dict) or old[i].get("api") != hashes[i]["api"]}
    changed = []
    for m in modules:
        before = old.get(m.id)
        if not isinstance(before, dict) or before.get("content") != hashes[m.id]["content"] \
                or api_changed.intersection(m.deps_out):
            changed.append(m.id)
    return Plan(tuple(changed), tuple(i for i in ids if i not in changed), "incremental")
