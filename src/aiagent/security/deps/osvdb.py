"""A local OSV advisory index in SQLite, filled by `aiagent security db import PATH`
(an OSV export zip, a folder of JSON records, or one JSON file/array)."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.security.deps.packages import normalize_name
from aiagent.security.errors import SecurityConfigError

SEED_RESOURCE = "osv-seed.json"


class OsvDatabase:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS advisory_package (ecosystem TEXT, name TEXT, id TEXT,"
            " PRIMARY KEY (ecosystem, name, id))"
        )
        self._db.execute("CREATE TABLE IF NOT EXISTS advisory (id TEXT PRIMARY KEY, record TEXT)")

    def close(self) -> None:
        self._db.close()

    def add(self, records: Iterator[dict[str, Any]]) -> int:
        count = 0
        with self._db:
            for record in records:
                self._db.execute("INSERT OR REPLACE INTO advisory VALUES (?, ?)",
                                 (record["id"], json.dumps(record)))
                for eco, name in _packages(record):
                    self._db.execute("INSERT OR IGNORE INTO advisory_package VALUES (?, ?, ?)",
                                     (eco, name, record["id"]))
                count += 1
        return count

    def lookup(self, ecosystem: str, name: str) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT a.record FROM advisory_package p JOIN advisory a ON a.id = p.id"
            " WHERE p.ecosystem = ? AND p.name = ?",
            (ecosystem, normalize_name(ecosystem, name)),
        )
        return [json.loads(r[0]) for r in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM advisory").fetchone()[0])


class SeedAdvisories:
    """The small advisory snapshot shipped with aiagent, used when no database exists."""

    def __init__(self) -> None:
        text = (resources.files("aiagent.security.data") / SEED_RESOURCE).read_text("utf-8")
        self.records: list[dict[str, Any]] = json.loads(text)
        self._index: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for record in self.records:
            for key in _packages(record):
                self._index.setdefault(key, []).append(record)

    def lookup(self, ecosystem: str, name: str) -> list[dict[str, Any]]:
        return self._index.get((ecosystem, normalize_name(ecosystem, name)), [])

    def count(self) -> int:
        return len(self.records)


def _packages(record: dict[str, Any]) -> set[tuple[str, str]]:
    out = set()
    for entry in record.get("affected") or []:
        info = entry.get("package") or {}
        eco = str(info.get("ecosystem", "")).split(":", 1)[0]
        if eco and info.get("name"):
            out.add((eco, normalize_name(eco, str(info["name"]))))
    return out


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Records from a zip, a folder (recursively) or a JSON file; bad ones fail loudly."""
    if not path.exists():
        raise SecurityConfigError(str(path), "", "no such file or folder")
    if path.is_dir():
        for file in sorted(path.rglob("*.json")):
            yield from _decode(str(file), file.read_bytes())
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            for name in sorted(n for n in zf.namelist() if n.endswith(".json")):
                yield from _decode(f"{path}:{name}", zf.read(name))
    else:
        yield from _decode(str(path), path.read_bytes())


def _decode(source: str, raw: bytes) -> Iterator[dict[str, Any]]:
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SecurityConfigError(source, "", f"not valid JSON ({exc.__class__.__name__})") from None
    for i, record in enumerate(data if isinstance(data, list) else [data]):
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise SecurityConfigError(source, f"[{i}].id", "an OSV record needs a string id")
        if not isinstance(record.get("affected", []), list):
            raise SecurityConfigError(source, f"{record['id']}.affected", "must be a list")
        yield record
