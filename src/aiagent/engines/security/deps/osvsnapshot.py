"""The bundled OSV snapshot: slim records (affected ranges only) built from OSV exports.

``build_snapshot`` reads OSV records (an ecosystem's ``all.zip`` export, a folder of JSON or
YAML records, or one JSON file/array; RustSec, ruby-advisory-db and Node.js Security WG
files are converted to OSV on the way), drops withdrawn records and everything the matcher
does not use, keeps the newest copy of each id, and returns the snapshot document that
``scripts/build_osv_snapshot.py`` writes as gzipped JSON.
"""

from __future__ import annotations

import gzip
import json
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.engines.security.errors import SecurityConfigError

SNAPSHOT_RESOURCE = "osv-snapshot.json.gz"
FORMAT = 1
# the ecosystems whose lockfiles aiagent reads (deps/lockfiles.py) plus Maven and NuGet
ECOSYSTEMS = ("PyPI", "npm", "Go", "crates.io", "RubyGems", "Packagist", "Maven", "NuGet",
              "SwiftURL", "Pub")
MATCHED_RANGES = {"SEMVER", "ECOSYSTEM"}
SUMMARY_CHARS = 200
RECORD_SUFFIXES = {".json", ".yaml", ".yml", ".md"}  # .md: RustSec advisories


def is_withdrawn(record: dict[str, Any]) -> bool:
    return bool(record.get("withdrawn"))


def read_any(path: Path) -> Iterator[dict[str, Any]]:
    """Records from a zip, a folder (JSON and YAML, recursively) or a JSON/YAML file."""
    if not path.exists():
        raise SecurityConfigError(str(path), "", "no such file or folder")
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.suffix in RECORD_SUFFIXES):
            if file.suffix == ".md":
                yield from _rustsec(file)
            else:
                yield from decode(str(file), file.read_bytes(), file.suffix != ".json")
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            for name in sorted(n for n in zf.namelist() if n.endswith(".json")):
                yield from decode(f"{path}:{name}", zf.read(name), False)
    elif path.suffix == ".md":
        yield from _rustsec(path)
    else:
        yield from decode(str(path), path.read_bytes(), path.suffix in {".yaml", ".yml"})


def _rustsec(path: Path) -> Iterator[dict[str, Any]]:
    """A RustSec advisory (TOML front matter); other Markdown files are not records."""
    from aiagent.engines.security.deps.rustsec import is_rustsec, to_osv

    text = path.read_text("utf-8", "replace")
    if not is_rustsec(text):
        return
    try:
        record = to_osv(text, str(path))
    except (ValueError, KeyError) as exc:
        raise SecurityConfigError(str(path), "", f"not a RustSec advisory ({exc})") from None
    if record is not None:
        yield record


def decode(source: str, raw: bytes, is_yaml: bool) -> Iterator[dict[str, Any]]:
    try:
        if is_yaml:
            import yaml

            data = _plain(yaml.safe_load(raw))
        else:
            data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, ImportError) as exc:
        kind = "YAML" if is_yaml else "JSON"
        raise SecurityConfigError(source, "", f"not valid {kind} ({exc.__class__.__name__})") from None
    if not is_yaml:
        from aiagent.engines.security.deps import nodesec

        if nodesec.is_nodesec(data):  # a nodejs/security-wg advisory, not an OSV record
            record = nodesec.to_osv(data)
            yield from [record] if record else []
            return
    if is_yaml:
        from aiagent.engines.security.deps import rubysec

        if rubysec.is_rubysec(data):  # a ruby-advisory-db file, not an OSV record
            record = rubysec.to_osv(data)
            yield from [record] if record else []
            return
    for i, record in enumerate(data if isinstance(data, list) else [data]):
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise SecurityConfigError(source, f"[{i}].id", "an OSV record needs a string id")
        if not isinstance(record.get("affected", []), list):
            raise SecurityConfigError(source, f"{record['id']}.affected", "must be a list")
        yield record


def _plain(data: Any) -> Any:
    """YAML reads `modified: 2021-05-04T12:00:00Z` as a datetime: back to the OSV text form."""
    import datetime as dt

    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    if isinstance(data, dt.datetime):
        if data.tzinfo is not None:
            data = data.astimezone(dt.UTC).replace(tzinfo=None)
        return data.isoformat() + "Z"
    if isinstance(data, dt.date):
        return data.isoformat()
    return data


def slim(record: dict[str, Any], ecosystems: Iterable[str] = ECOSYSTEMS) -> dict[str, Any] | None:
    """What the matcher and the report use; None when nothing in it is for ``ecosystems``."""
    wanted = set(ecosystems)
    affected = [a for a in (_slim_affected(e, wanted) for e in record.get("affected") or []) if a]
    if not affected:
        return None
    out: dict[str, Any] = {"id": record["id"], "modified": str(record.get("modified", ""))}
    if record.get("aliases"):
        out["aliases"] = sorted(str(a) for a in record["aliases"])
    out["summary"] = _summary(record)
    if record.get("severity"):
        out["severity"] = [{"type": s.get("type"), "score": s.get("score")}
                           for s in record["severity"] if isinstance(s, dict)]
    specific = record.get("database_specific") or {}
    kept = {k: specific[k] for k in ("severity", "cwe_ids") if specific.get(k)}
    if kept:
        out["database_specific"] = kept
    out["affected"] = affected
    return out


def _summary(record: dict[str, Any]) -> str:
    text = str(record.get("summary") or "").strip()
    if not text:  # PYSEC records have details only: their first sentence
        details = " ".join(str(record.get("details") or "").split())
        text = details.split(". ")[0]
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def _slim_affected(entry: dict[str, Any], wanted: set[str]) -> dict[str, Any] | None:
    package = entry.get("package") or {}
    ecosystem = str(package.get("ecosystem", "")).split(":", 1)[0]
    if ecosystem not in wanted or not package.get("name"):
        return None
    ranges = [{"type": r["type"], "events": [{k: str(v) for k, v in ev.items()}
                                             for ev in r.get("events") or []]}
              for r in entry.get("ranges") or [] if r.get("type") in MATCHED_RANGES]
    out: dict[str, Any] = {"package": {"ecosystem": package["ecosystem"], "name": package["name"]}}
    if ranges:
        out["ranges"] = ranges
    elif entry.get("versions"):  # only GIT ranges: the explicit list is all we can match
        out["versions"] = [str(v) for v in entry["versions"]]
    else:
        return None
    return out


def newest(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One record per id: the copy with the latest ``modified`` wins. Copies of the same age
    are one advisory seen from several places (a GHSA in two ecosystems' exports, or filed
    once per gem): their affected packages are united."""
    by_id: dict[str, dict[str, Any]] = {}
    for record in records:
        old = by_id.get(record["id"])
        new_time, old_time = str(record.get("modified", "")), str((old or {}).get("modified", ""))
        if old is None or new_time > old_time:
            by_id[record["id"]] = record
        elif new_time == old_time:
            by_id[record["id"]] = {**record, "affected": _union(old.get("affected") or [],
                                                                record.get("affected") or [])}
    return by_id


def _union(a: list[Any], b: list[Any]) -> list[Any]:
    seen = {json.dumps(x, sort_keys=True) for x in a}
    return a + [x for x in b if json.dumps(x, sort_keys=True) not in seen]


def build_snapshot(sources: Iterable[Path], ecosystems: Iterable[str] = ECOSYSTEMS,
                   built: str = "") -> dict[str, Any]:
    wanted = tuple(ecosystems)
    latest = newest(r for path in sources for r in read_any(path))
    records = [s for r in latest.values() if not is_withdrawn(r) and (s := slim(r, wanted))]
    records.sort(key=lambda r: r["id"])
    counts = Counter(e for r in records for e in {a["package"]["ecosystem"].split(":")[0]
                                                  for a in r["affected"]})
    return {
        "format": FORMAT,
        "built": built,
        "newest_modified": max((r["modified"] for r in records), default=""),
        "withdrawn_dropped": sum(1 for r in latest.values() if is_withdrawn(r)),
        "counts": dict(sorted(counts.items())),
        "records": records,
    }


def write_snapshot(doc: dict[str, Any], out: Path) -> None:
    """Gzipped JSON, byte-for-byte reproducible (no file name or time in the header)."""
    data = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(data)
    tmp.replace(out)


def load_bundled() -> dict[str, Any]:
    raw = (resources.files("aiagent.engines.security.data") / SNAPSHOT_RESOURCE).read_bytes()
    doc: dict[str, Any] = json.loads(gzip.decompress(raw))
    return doc
