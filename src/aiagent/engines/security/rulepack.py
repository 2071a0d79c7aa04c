"""Load built-in YAML rule packs from package data, with a content hash as their version."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from typing import Any

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.yamlio import YAMLError, load_yaml

PACKAGE = "aiagent.engines.security.rules"


@cache
def read_pack_text(name: str) -> str:
    """Text of ``rules/<name>`` (a path relative to the rules package)."""
    node = resources.files(PACKAGE)
    for part in name.split("/"):
        node = node / part
    return node.read_text(encoding="utf-8")


def list_packs(folder: str) -> list[str]:
    node = resources.files(PACKAGE) / folder
    return sorted(f"{folder}/{p.name}" for p in node.iterdir() if p.name.endswith(".yaml"))


@cache
def load_pack(name: str) -> tuple[dict[str, Any], ...]:
    """The ``rules`` list of a pack; each rule gets ``_source`` for error messages."""
    text = read_pack_text(name)
    try:
        data = load_yaml(text)
    except YAMLError:
        raise SecurityConfigError(f"rules/{name}", "", "invalid YAML") from None
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise SecurityConfigError(f"rules/{name}", "rules", "must be a list")
    return tuple({**r, "_source": f"rules/{name}"} for r in data["rules"])


def packs_version(names: list[str]) -> str:
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode())
        h.update(read_pack_text(name).encode())
    return h.hexdigest()[:16]
