"""Advisory sources: the bundled OSV snapshot, the local SQLite database filled by
`aiagent security db import PATH` / `db update`, and the index that merges them.

Merging is by id: the copy with the latest ``modified`` wins, and a withdrawn winner hides
the id everywhere (so importing a withdrawn record retracts a bundled one)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from aiagent.engines.security.deps.osvsnapshot import is_withdrawn, load_bundled, newest, read_any
from aiagent.engines.security.deps.packages import normalize_name
from aiagent.engines.security.errors import SecurityConfigError


class AdvisorySource(Protocol):
    def lookup(self, ecosystem: str, name: str) -> list[dict[str, Any]]: ...


class OsvDatabase:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path)
        try:
            self._create()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise SecurityConfigError(str(path), "", f"not an advisory database ({exc})") from None

    def _create(self) -> None:
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS advisory_package (ecosystem TEXT, name TEXT, id TEXT,"
            " PRIMARY KEY (ecosystem, name, id))"
        )
        self._db.execute("CREATE TABLE IF NOT EXISTS advisory (id TEXT PRIMARY KEY, record TEXT)")

    def close(self) -> None:
        self._db.close()

    def add(self, records: Iterator[dict[str, Any]]) -> int:
        """Merge records in: a stored copy is replaced only by one at least as new. Withdrawn
        records are kept as tombstones so they retract the bundled copy of the same id."""
        count = 0
        with self._db:
            for record in records:
                old = self._db.execute("SELECT record FROM advisory WHERE id = ?",
                                       (record["id"],)).fetchone()
                if old is not None and str(json.loads(old[0]).get("modified", "")) > str(
                        record.get("modified", "")):
                    continue
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

    def ids(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT id FROM advisory")}


class BundledAdvisories:
    """The OSV snapshot shipped with aiagent (built by scripts/build_osv_snapshot.py)."""

    def __init__(self) -> None:
        doc = load_bundled()
        self.info = {k: v for k, v in doc.items() if k != "records"}
        self.records: list[dict[str, Any]] = doc["records"]
        self._index: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for record in self.records:
            for key in _packages(record):
                self._index.setdefault(key, []).append(record)

    def lookup(self, ecosystem: str, name: str) -> list[dict[str, Any]]:
        return self._index.get((ecosystem, normalize_name(ecosystem, name)), [])

    def count(self) -> int:
        return len(self.records)

    def ids(self) -> set[str]:
        return {r["id"] for r in self.records}

    def describe(self) -> str:
        counts = ", ".join(f"{eco} {n}" for eco, n in self.info.get("counts", {}).items())
        return f"{self.count()} advisories built {self.info.get('built') or '?'} ({counts})"



@cache
def bundled_advisories() -> BundledAdvisories:
    """The shipped snapshot, read and indexed once per process (about 0.5 s): a batch
    worker audits many repositories with the same one. Its records are never changed."""
    return BundledAdvisories()


class AdvisoryIndex:
    """Several sources as one: newest copy per id, withdrawn records dropped."""

    def __init__(self, sources: Sequence[AdvisorySource]) -> None:
        self.sources = list(sources)

    def lookup(self, ecosystem: str, name: str) -> list[dict[str, Any]]:
        return merge_records(r for s in self.sources for r in s.lookup(ecosystem, name))

    def close(self) -> None:
        for source in self.sources:
            if isinstance(source, OsvDatabase):
                source.close()


def merge_records(records: Iterator[dict[str, Any]] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Newest copy of each id; ids whose newest copy is withdrawn are left out."""
    return [r for r in newest(records).values() if not is_withdrawn(r)]


def _packages(record: dict[str, Any]) -> set[tuple[str, str]]:
    out = set()
    for entry in record.get("affected") or []:
        info = entry.get("package") or {}
        eco = str(info.get("ecosystem", "")).split(":", 1)[0]
        if eco and info.get("name"):
            out.add((eco, normalize_name(eco, str(info["name"]))))
    return out


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Records from a zip, a folder (recursively) or a JSON/YAML file; bad ones fail loudly."""
    return read_any(path)
