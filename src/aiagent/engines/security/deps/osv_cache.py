"""On-disk cache of OSV API answers: one JSON file per batch answer and per vuln record.

``queries/`` holds the ids (and ``modified`` stamps) the batch API gave for one
(ecosystem, name, version), valid for the TTL. ``vulns/`` holds full records by id; a
record is reused while the batch answer names the same ``modified`` stamp (or, with no
stamp, for the TTL). A file that cannot be read or does not have the expected shape is a
miss, and the next answer overwrites it; a cache that cannot be written is skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

QueryKey = tuple[str, str, str]  # (ecosystem, normalised name, version)
VulnRef = dict[str, str]  # {"id": ..., "modified": ...} as the batch API gives it
FORMAT = 1


class OsvCache:
    def __init__(self, root: Path, ttl_s: float, clock: Callable[[], float] = time.time) -> None:
        self.root = root
        self.ttl_s = ttl_s
        self.clock = clock

    def get_query(self, key: QueryKey) -> list[VulnRef] | None:
        data = self._read(self._query_path(key))
        if data is None or data.get("key") != list(key) or not self._fresh(data):
            return None
        refs = data.get("vulns")
        if not isinstance(refs, list) or not all(_is_ref(r) for r in refs):
            return None
        return refs

    def put_query(self, key: QueryKey, refs: list[VulnRef]) -> None:
        self._write(self._query_path(key), {"key": list(key), "vulns": refs})

    def get_vuln(self, vuln_id: str, modified: str = "") -> dict[str, Any] | None:
        data = self._read(self._vuln_path(vuln_id))
        record = data.get("record") if data else None
        if not isinstance(record, dict) or record.get("id") != vuln_id:
            return None
        if modified:
            return record if str(record.get("modified", "")) == modified else None
        return record if self._fresh(data or {}) else None

    def put_vuln(self, record: dict[str, Any]) -> None:
        self._write(self._vuln_path(str(record["id"])), {"record": record})

    def _query_path(self, key: QueryKey) -> Path:
        digest = hashlib.sha256(json.dumps(list(key)).encode("utf-8")).hexdigest()[:40]
        return self.root / "queries" / f"{digest}.json"

    def _vuln_path(self, vuln_id: str) -> Path:
        return self.root / "vulns" / f"{re.sub(r'[^A-Za-z0-9._-]', '_', vuln_id)}.json"

    def _fresh(self, data: dict[str, Any]) -> bool:
        fetched = data.get("fetched")
        if isinstance(fetched, bool) or not isinstance(fetched, int | float):
            return False
        age = self.clock() - fetched
        return 0 <= age < self.ttl_s

    def _read(self, path: Path) -> dict[str, Any] | None:
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):  # missing, unreadable, truncated or not JSON
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        return data

    def _write(self, path: Path, payload: dict[str, Any]) -> None:
        body = json.dumps({"format": FORMAT, "fetched": self.clock(), **payload})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError:
            return  # a read-only or broken cache folder only costs a refetch next time
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(body)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _is_ref(ref: Any) -> bool:
    return isinstance(ref, dict) and isinstance(ref.get("id"), str) and \
        isinstance(ref.get("modified", ""), str)
