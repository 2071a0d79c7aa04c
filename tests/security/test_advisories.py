"""Advisories: the snapshot build script, the bundled snapshot, merging imports, withdrawn
records, `security db update` (against a loopback server) and package.json ranges."""

from __future__ import annotations

import gzip
import http.server
import json
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.deps.manifests import range_floor
from aiagent.engines.security.deps.osvdb import AdvisoryIndex, BundledAdvisories, OsvDatabase
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.frontends.cli.security_audit import security_audit
from aiagent.frontends.cli.security_db import security

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "build_osv_snapshot.py"


def record(vid: str, eco: str, name: str, fixed: str, modified: str = "2025-01-01T00:00:00Z",
           **extra: object) -> dict:  # type: ignore[type-arg]
    """An OSV record shaped like the real exports (GHSA with severity label, long details…)."""
    return {
        "schema_version": "1.6.0", "id": vid, "modified": modified,
        "published": "2024-01-01T00:00:00Z", "aliases": ["CVE-2024-0001"],
        "summary": f"Issue in {name}", "details": "Long text. " * 200,
        "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
        "affected": [{
            "package": {"ecosystem": eco, "name": name, "purl": f"pkg:x/{name}"},
            "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": fixed}]},
                       {"type": "GIT", "repo": "https://example.org/r",
                        "events": [{"introduced": "0"}, {"fixed": "abc123"}]}],
            "versions": [f"0.{i}" for i in range(50)],
            "database_specific": {"source": "https://example.org/x.json"},
        }],
        "references": [{"type": "WEB", "url": "https://example.org/advisory"}],
        "database_specific": {"severity": "HIGH", "cwe_ids": ["CWE-79"], "github_reviewed": True},
        **extra,
    }


def write_zip(path: Path, records: list[dict]) -> Path:  # type: ignore[type-arg]
    with zipfile.ZipFile(path, "w") as zf:
        for r in records:
            zf.writestr(f"{r['id']}.json", json.dumps(r))
    return path


def test_build_script_slims_drops_withdrawn_and_keeps_newest(tmp_path: Path) -> None:
    npm = write_zip(tmp_path / "npm-all.zip", [
        record("GHSA-aaaa-bbbb-cccc", "npm", "left-pad", "1.3.0"),
        record("GHSA-gone-gone-gone", "npm", "is-odd", "2.0.0", withdrawn="2025-02-01T00:00:00Z"),
        record("GHSA-dddd-eeee-ffff", "npm", "old-copy", "1.0.0", "2024-01-01T00:00:00Z"),
    ])
    pypi = tmp_path / "pypi"
    pypi.mkdir()
    (pypi / "PYSEC-2025-1.yaml").write_text(  # the PyPA database's YAML form, no summary
        "id: PYSEC-2025-1\nmodified: 2025-03-01T00:00:00Z\ndetails: Flask leaks cookies. More.\n"
        "affected:\n- package: {ecosystem: PyPI, name: flask}\n  ranges:\n  - type: ECOSYSTEM\n"
        "    events:\n    - introduced: '0'\n    - fixed: 2.2.5\n")
    (pypi / "newer.json").write_text(json.dumps(record("GHSA-dddd-eeee-ffff", "npm", "old-copy",
                                                       "1.0.1", "2025-06-01T00:00:00Z")))
    (pypi / "debian.json").write_text(json.dumps(record("DSA-1", "Debian:12", "openssl", "3")))
    out = tmp_path / "snap.json.gz"
    proc = subprocess.run([sys.executable, str(SCRIPT), str(npm), str(pypi), "--out", str(out),
                           "--built", "2025-07-01", "--note", "test"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "wrote 3 advisories" in proc.stdout and "1 withdrawn dropped" in proc.stdout
    doc = json.loads(gzip.decompress(out.read_bytes()))
    assert doc["counts"] == {"PyPI": 1, "npm": 2} and doc["built"] == "2025-07-01"
    assert doc["sources"] == ["test"] and doc["newest_modified"] == "2025-06-01T00:00:00Z"
    by_id = {r["id"]: r for r in doc["records"]}
    assert set(by_id) == {"GHSA-aaaa-bbbb-cccc", "GHSA-dddd-eeee-ffff", "PYSEC-2025-1"}
    assert by_id["GHSA-dddd-eeee-ffff"]["affected"][0]["ranges"][0]["events"][1] == {"fixed": "1.0.1"}
    ghsa = by_id["GHSA-aaaa-bbbb-cccc"]
    assert set(ghsa) == {"id", "modified", "aliases", "summary", "severity", "database_specific",
                         "affected"}
    assert ghsa["database_specific"] == {"severity": "HIGH", "cwe_ids": ["CWE-79"]}
    assert ghsa["affected"] == [{"package": {"ecosystem": "npm", "name": "left-pad"}, "ranges": [
        {"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "1.3.0"}]}]}]
    assert by_id["PYSEC-2025-1"]["summary"] == "Flask leaks cookies"
    again = tmp_path / "again.json.gz"
    subprocess.run([sys.executable, str(SCRIPT), str(npm), str(pypi), "--out", str(again),
                    "--built", "2025-07-01", "--note", "test"], check=True, capture_output=True)
    assert again.read_bytes() == out.read_bytes()  # reproducible


RUSTSEC = """```toml
[advisory]
id = "RUSTSEC-2099-0001"
package = "tinyvec-like"
date = "2099-01-02"
aliases = ["CVE-2099-1"]
cvss = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"

[versions]
patched = [">= 0.6.14, < 1.0.0", ">= 1.6.1"]
unaffected = ["< 0.6.3"]
```

# Out-of-bounds write in insert_many

Longer text.
"""


def test_rustsec_advisories_become_osv_ranges(tmp_path: Path) -> None:
    from aiagent.engines.security.deps.osvmatch import is_affected
    from aiagent.engines.security.deps.packages import Package
    from aiagent.engines.security.deps.rustsec import to_osv

    rec = to_osv(RUSTSEC)
    assert rec is not None and rec["summary"] == "Out-of-bounds write in insert_many"
    assert rec["affected"][0]["ranges"][0]["events"] == [
        {"introduced": "0.6.3"}, {"fixed": "0.6.14"}, {"introduced": "1.0.0"}, {"fixed": "1.6.1"}]
    hits = {v: is_affected(rec, Package("crates.io", "tinyvec-like", v, "Cargo.lock"))
            for v in ("0.6.2", "0.6.3", "0.6.13", "0.6.14", "0.9.0", "1.0.0", "1.6.0", "1.6.1")}
    assert hits == {"0.6.2": False, "0.6.3": True, "0.6.13": True, "0.6.14": False,
                    "0.9.0": False, "1.0.0": True, "1.6.0": True, "1.6.1": False}
    crates = tmp_path / "crates" / "tinyvec-like"
    crates.mkdir(parents=True)
    (crates / "RUSTSEC-2099-0001.md").write_text(RUSTSEC)
    (tmp_path / "crates" / "README.md").write_text("# not an advisory\n")
    out = tmp_path / "s.json.gz"
    subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "crates"), "--out", str(out)],
                   check=True, capture_output=True, timeout=120)
    assert json.loads(gzip.decompress(out.read_bytes()))["counts"] == {"crates.io": 1}


RUBYSEC = """---
gem: xmlish
cve: 2099-0002
ghsa: abcd-efgh-ijkl
title: XXE in xmlish
date: 2099-02-03
cvss_v3: 9.1
patched_versions:
  - "~> 4.2.11.1"
  - ">= 5.2.2.1"
unaffected_versions:
  - "< 3.0"
"""


def test_ruby_advisory_db_files_become_osv_ranges(tmp_path: Path) -> None:
    from aiagent.engines.security.deps.osvmatch import is_affected
    from aiagent.engines.security.deps.osvsnapshot import newest, read_any
    from aiagent.engines.security.deps.packages import Package

    gems = tmp_path / "gems" / "xmlish"
    gems.mkdir(parents=True)
    (gems / "CVE-2099-0002.yml").write_text(RUBYSEC)
    other = tmp_path / "gems" / "xmlish-ext"
    other.mkdir()  # the same advisory filed for a second gem
    (other / "CVE-2099-0002.yml").write_text(RUBYSEC.replace("gem: xmlish", "gem: xmlish-ext"))
    merged = newest(read_any(tmp_path / "gems"))["GHSA-abcd-efgh-ijkl"]
    assert [a["package"]["name"] for a in merged["affected"]] == ["xmlish", "xmlish-ext"]
    rec = merged
    assert rec["id"] == "GHSA-abcd-efgh-ijkl" and rec["aliases"] == ["CVE-2099-0002"]
    assert rec["database_specific"] == {"severity": "CRITICAL"}
    hits = {v: is_affected(rec, Package("RubyGems", "xmlish", v, "Gemfile.lock"))
            for v in ("2.9", "3.0", "4.2.11", "4.2.11.1", "4.2.20", "5.2.2", "5.2.2.1")}
    assert hits == {"2.9": False, "3.0": True, "4.2.11": True, "4.2.11.1": False,
                    "4.2.20": True, "5.2.2": True, "5.2.2.1": False}


def test_build_script_reports_a_bad_source_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    proc = subprocess.run([sys.executable, str(SCRIPT), str(bad), "--out", str(tmp_path / "o.gz")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.strip().endswith("bad.json: not valid JSON (JSONDecodeError)")
    assert not (tmp_path / "o.gz").exists()


def test_bundled_snapshot_is_slim_and_reproducible(tmp_path: Path) -> None:
    """The bundled file is what the build script makes of its recorded sources (public
    OSV-format advisory databases, OSV-SNAPSHOT.md), slim enough to ship."""
    bundled = BundledAdvisories()
    counts = bundled.info["counts"]
    assert counts["PyPI"] > 2000 and counts["Go"] > 3000 and counts["crates.io"] > 800
    assert counts["RubyGems"] > 800 and counts["npm"] > 400 and counts["Maven"] >= 1
    assert len(bundled.info["sources"]) >= 6  # every source named, with its licence
    assert not any(r.get("withdrawn") for r in bundled.records)
    assert all("details" not in r and "references" not in r for r in bundled.records)
    assert "GHSA-h5c8-rqwp-cp95" in {r["id"] for r in bundled.lookup("PyPI", "jinja2")}
    size = (REPO / "src/aiagent/engines/security/data/osv-snapshot.json.gz").stat().st_size
    assert size < 15_000_000


def test_import_merges_newer_wins_and_withdrawn_retracts(tmp_path: Path) -> None:
    bundled = BundledAdvisories()
    (target,) = [r for r in bundled.lookup("PyPI", "jinja2") if r["id"] == "GHSA-h5c8-rqwp-cp95"]
    db = OsvDatabase(tmp_path / "osv.sqlite")
    index = AdvisoryIndex([bundled, db])
    older = {**target, "modified": "2000-01-01T00:00:00Z", "withdrawn": "2000-01-02T00:00:00Z"}
    db.add(iter([older]))  # an older withdrawn copy does not retract the bundled one
    assert "GHSA-h5c8-rqwp-cp95" in {r["id"] for r in index.lookup("PyPI", "jinja2")}
    newer = {**target, "modified": "2099-01-01T00:00:00Z", "withdrawn": "2099-01-01T00:00:00Z"}
    db.add(iter([newer]))
    ids = {r["id"] for r in index.lookup("PyPI", "jinja2")}
    assert "GHSA-h5c8-rqwp-cp95" not in ids  # retracted
    assert {r["id"] for r in index.lookup("PyPI", "pyyaml")} >= {  # the rest still there
        "GHSA-8q59-q68h-6hv4", "GHSA-6757-jp84-gxfx"}
    db.add(iter([{**target, "modified": "2001-01-01T00:00:00Z"}]))  # older: does not replace
    assert "GHSA-h5c8-rqwp-cp95" not in {r["id"] for r in index.lookup("PyPI", "jinja2")}
    db.close()


def _audit_ids(root: Path, osv_db: Path | None = None) -> tuple[dict[str, dict], list[str]]:  # type: ignore[type-arg]
    result = run_audit(root, SecurityConfig(), AuditOptions(jobs=1, osv_db=osv_db,
                                                            scanners=("dependencies",)))
    return {f.id: {"title": f.title, "meta": f.metadata, "file": f.location.file,
                   "line": f.location.start_line} for f in result.findings}, result.warnings


def test_package_json_ranges_without_a_lockfile_are_checked_at_their_floor(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({
        "dependencies": {"lodash": "^4.17.0", "express": "~4.21.0"},
        "devDependencies": {"minimist": "*", "local": "file:../x"},
    }, indent=2))
    found, warnings = _audit_ids(tmp_path)
    lodash = found["GHSA-jf85-cpcp-j695"]
    assert lodash["title"].startswith("lodash ^4.17.0 (range, no lockfile; 4.17.0 allowed): ")
    assert lodash["meta"]["version_range"] == "^4.17.0" and lodash["line"] == 3
    assert "GHSA-rv95-896h-c2vc" not in found  # ~4.21.0 is past the express fix (4.19.2)
    assert any("package.json: no lockfile; 2 dependencies name no version to check (local, minimist)"
               in w for w in warnings)


def test_package_json_with_a_lockfile_uses_the_locked_versions(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {"lodash": "^4.17.0"}}))
    (tmp_path / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": {
        "": {"name": "app"}, "node_modules/lodash": {"version": "4.17.21"}}}))
    found, warnings = _audit_ids(tmp_path)
    assert "GHSA-jf85-cpcp-j695" not in found and not warnings  # 4.17.21 is fixed


@pytest.mark.parametrize(("spec", "floor"), [
    ("^4.17.0", "4.17.0"), ("~1.2.3", "1.2.3"), (">=1.2.3 <2", "1.2.3"), ("1.2.x", "1.2.0"),
    ("^1.0.0 || ^2.0.0", "1.0.0"), ("4.17.11", "4.17.11"), ("*", None), ("latest", None),
    ("<2.0.0", None), (">1.2.3", None), ("git+https://example.org/r.git", None),
    ("workspace:*", None), ("npm:other@1", None),
])
def test_range_floor(spec: str, floor: str | None) -> None:
    assert range_floor(spec) == floor


class _Export(http.server.BaseHTTPRequestHandler):
    zips: dict[str, bytes] = {}

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = self.zips.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def export_server(tmp_path: Path) -> Iterator[str]:
    z = write_zip(tmp_path / "x.zip", [record("GHSA-upd1-upd1-upd1", "npm", "left-pad", "1.3.0"),
                                       record("GHSA-upd2-upd2-upd2", "npm", "is-odd", "2.0.0",
                                              withdrawn="2025-01-02T00:00:00Z")])
    _Export.zips = {"/npm/all.zip": z.read_bytes()}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Export)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_db_update_merges_the_export_from_a_server(export_server: str, tmp_path: Path) -> None:
    db = tmp_path / "osv.sqlite"
    result = CliRunner().invoke(security, ["db", "update", "--db", str(db), "--url", export_server,
                                           "--ecosystem", "npm"])
    assert result.exit_code == 0, result.output
    assert f"updated {db}: npm 2 (2 in the database; bundled snapshot: " in result.output
    app = tmp_path / "app"
    app.mkdir()
    (app / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": {
        "node_modules/left-pad": {"version": "1.0.0"}, "node_modules/is-odd": {"version": "1.0.0"},
        "node_modules/lodash": {"version": "4.17.11"}}}))
    out = CliRunner().invoke(security_audit, [str(app), "--osv-db", str(db), "-o", "json",
                                              "--no-cache", "--scanners", "dependencies"]).output
    ids = {f["id"] for f in json.loads(out)["findings"]}
    assert {"GHSA-upd1-upd1-upd1", "GHSA-jf85-cpcp-j695"} <= ids  # update + bundled, merged
    assert "GHSA-upd2-upd2-upd2" not in ids  # withdrawn


def test_db_update_offline_says_so_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "osv.sqlite"
    result = CliRunner().invoke(security, ["db", "update", "--db", str(db), "--url",
                                           "http://127.0.0.1:9", "--ecosystem", "PyPI"])
    assert result.exit_code == 2
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("aiagent: error: security db update: cannot reach 127.0.0.1:9 (")
    assert "offline?; nothing changed, audits keep using bundled snapshot: " in line


def test_db_update_404_is_reported(export_server: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(security, ["db", "update", "--db", str(tmp_path / "o.sqlite"),
                                           "--url", export_server, "--ecosystem", "Go"])
    assert result.exit_code == 2 and "/Go/all.zip answered HTTP 404" in result.output


def test_damaged_database_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "osv.sqlite"
    bad.write_bytes(b"not a database at all" * 100)
    result = CliRunner().invoke(security, ["db", "info", "--db", str(bad)])
    assert result.exit_code == 2 and f"{bad}: not an advisory database" in result.output
