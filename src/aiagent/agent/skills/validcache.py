"""Manifests already found valid, remembered by content hash in the cache folder.

Discovery reads every manifest on every start; checking each against the JSON schema
means importing jsonschema and about a millisecond per manifest. A manifest whose parsed
content (and the schema) hashes to one found valid before is valid again, so only new or
changed manifests are checked; an invalid one is never remembered, so it is checked,
and reported, every time. The file is ``$XDG_CACHE_HOME/aiagent/skills/valid-manifests.json``
(safe to delete), written atomically, at most :data:`MAX_ENTRIES` hashes.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from aiagent.infra.config import paths

MAX_ENTRIES = 4096
_FILE = ("skills", "valid-manifests.json")


def digest(data: Any, schema: str) -> str | None:
    """A hash of the parsed manifest and the schema text (None when the data cannot be
    written as JSON: it is then always checked); values JSON has no type for (YAML
    dates) are kept apart from strings that look the same."""
    try:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=_tagged)
    except (TypeError, ValueError, RecursionError):  # mixed key types, deep nesting
        return None
    return hashlib.sha256(f"{hashlib.sha256(schema.encode()).hexdigest()}\n{text}".encode()).hexdigest()


def _tagged(value: Any) -> str:
    return f"\0{type(value).__name__}\0{value!r}"


class ValidCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._valid: dict[str, None] = dict.fromkeys(_read(path))
        self._dirty = False

    def __contains__(self, key: str) -> bool:
        return key in self._valid

    def add(self, key: str) -> None:
        if key in self._valid:
            return
        self._valid[key] = None
        while len(self._valid) > MAX_ENTRIES:
            del self._valid[next(iter(self._valid))]
        if not self._dirty:
            self._dirty = True
            atexit.register(self.save)

    def save(self) -> None:
        """Write the hashes (temp file, then rename); a failure only costs speed."""
        if not self._dirty:
            return
        self._dirty = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".valid-")
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"valid": list(self._valid)}, out)
            os.replace(tmp, self.path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)


def _read(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return []
    valid = data.get("valid") if isinstance(data, dict) else None
    if not isinstance(valid, list):
        return []
    return [v for v in valid if isinstance(v, str) and len(v) == 64]


@cache
def valid_cache() -> ValidCache:

    return ValidCache(paths.cache_dir().joinpath(*_FILE))
