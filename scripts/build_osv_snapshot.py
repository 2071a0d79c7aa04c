#!/usr/bin/env python3
"""Build the advisory snapshot bundled with aiagent from OSV exports.

    python scripts/build_osv_snapshot.py PyPI-all.zip npm-all.zip Go-all.zip ... \\
        [--out src/aiagent/engines/security/data/osv-snapshot.json.gz] [--ecosystem PyPI ...]

Each source is an OSV export zip (https://osv-vulnerabilities.storage.googleapis.com/
ECOSYSTEM/all.zip), a folder of OSV records (JSON or YAML, e.g. an advisory database
checkout: github/advisory-database's advisories/github-reviewed, pypa/advisory-database's
vulns, golang/vulndb's data/osv; rustsec/advisory-db's crates, rubysec/ruby-advisory-db's
gems and nodejs/security-wg's vuln/npm are converted) or a JSON file holding one record or
a list. Withdrawn records are dropped, the
newest copy of each id is kept, and only what the matcher uses stays (id, modified,
aliases, summary, severity, affected packages with SEMVER/ECOSYSTEM ranges or explicit
versions). The output is gzipped JSON and reproducible. Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src/aiagent/engines/security/data/osv-snapshot.json.gz"


def main(argv: list[str] | None = None) -> int:
    from aiagent.engines.security.deps.osvsnapshot import ECOSYSTEMS, build_snapshot, write_snapshot
    from aiagent.engines.security.errors import SecurityConfigError

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path, help="all.zip exports, folders or JSON files")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--ecosystem", action="append", dest="ecosystems",
                        help=f"keep only these (repeatable; default: {', '.join(ECOSYSTEMS)})")
    parser.add_argument("--built", default=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
                        help="the date recorded in the snapshot (default: today, UTC)")
    parser.add_argument("--note", action="append", default=[],
                        help="where a source came from, recorded in the snapshot (repeatable)")
    parser.add_argument("--facts-only", action="append", default=[], metavar="ECOSYSTEM",
                        help="keep only ids, packages, ranges and severity for this ecosystem's "
                             "records, no summary text (repeatable; for sources whose prose "
                             "is under another licence)")
    args = parser.parse_args(argv)
    try:
        doc = build_snapshot(args.sources, tuple(args.ecosystems or ECOSYSTEMS), args.built)
        doc["sources"] = list(args.note)
        drop_summaries(doc["records"], set(args.facts_only))
    except SecurityConfigError as exc:
        print(f"build_osv_snapshot: error: {exc}", file=sys.stderr)
        return 2
    write_snapshot(doc, args.out)
    counts = ", ".join(f"{eco} {n}" for eco, n in doc["counts"].items())
    print(f"wrote {len(doc['records'])} advisories to {args.out} ({counts}; "
          f"{doc['withdrawn_dropped']} withdrawn dropped; {args.out.stat().st_size} bytes)")
    return 0


def drop_summaries(records: list[dict], ecosystems: set[str]) -> None:
    for record in records:
        if any(a["package"]["ecosystem"] in ecosystems for a in record["affected"]):
            record["summary"] = ""


if __name__ == "__main__":
    sys.exit(main())
