"""Lockfile parsers, OSV matching with each ecosystem's ordering, the advisory database."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from sec_helpers import FIXTURES

from aiagent.engines.security.deps.lockfiles import parser_for
from aiagent.engines.security.deps.osvdb import OsvDatabase, read_records
from aiagent.engines.security.deps.osvmatch import is_affected
from aiagent.engines.security.deps.packages import Package
from aiagent.engines.security.errors import SecurityConfigError

LOCKS = FIXTURES / "lockfiles"
EXPECTED = {
    "requirements.txt": {("PyPI", "Django", "3.2.0"), ("PyPI", "requests", "2.19.1")},
    "package-lock.json": {("npm", "lodash", "4.17.11"), ("npm", "@babel/core", "7.1.0")},
    "v1/package-lock.json": {("npm", "minimist", "1.2.0"), ("npm", "mkdirp", "0.5.1")},
    "yarn.lock": {("npm", "lodash", "4.17.15"), ("npm", "@types/node", "14.0.0")},
    "berry/yarn.lock": {("npm", "lodash", "4.17.21")},
    "pnpm-lock.yaml": {("npm", "lodash", "4.17.20"), ("npm", "@scope/pkg", "1.0.0")},
    "Cargo.lock": {("crates.io", "smallvec", "1.6.0")},
    "poetry.lock": {("PyPI", "jinja2", "2.10")},
    "uv.lock": {("PyPI", "urllib3", "1.26.4")},
    "Pipfile.lock": {("PyPI", "flask", "0.12.2")},
    "go.sum": {("Go", "golang.org/x/text", "v0.3.5")},
    "go.mod": {("Go", "github.com/dgrijalva/jwt-go", "v3.2.0+incompatible")},
    "Gemfile.lock": {("RubyGems", "nokogiri", "1.10.0"), ("RubyGems", "rack", "2.0.6")},
    "composer.lock": {("Packagist", "guzzlehttp/guzzle", "6.5.0")},
    "Package.resolved": {("SwiftURL", "https://github.com/apple/swift-nio", "2.40.0")},
}


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_lockfile_parsers(rel: str) -> None:
    parser = parser_for(rel)
    assert parser is not None
    found = {(p.ecosystem, p.name, p.version) for p in parser(rel, (LOCKS / rel).read_text())}
    assert EXPECTED[rel] <= found
    assert all(p.line > 0 for p in parser(rel, (LOCKS / rel).read_text()))


def osv(rel: str) -> dict:
    return json.loads((FIXTURES / "osv" / rel).read_text())


@pytest.mark.parametrize(("record", "eco", "name", "version", "hit"), [
    ("GHSA-jf85-cpcp-j695.json", "npm", "lodash", "4.17.11", True),
    ("GHSA-jf85-cpcp-j695.json", "npm", "lodash", "4.17.12", False),
    ("GHSA-jf85-cpcp-j695.json", "npm", "lodash", "4.9.0", True),
    ("PYSEC-2021-66.json", "PyPI", "Jinja2", "2.11.2", True),
    ("PYSEC-2021-66.json", "PyPI", "jinja2", "2.11.3", False),
    ("PYSEC-2021-66.json", "PyPI", "jinja2", "2.10", True),
    ("PYSEC-2021-66.json", "PyPI", "jinja2", "3.0.0rc1", False),
    ("GO-2021-0113.json", "Go", "golang.org/x/text", "v0.3.5", True),
    ("GO-2021-0113.json", "Go", "golang.org/x/text", "v0.3.7", False),
    ("RUSTSEC-2021-0003.json", "crates.io", "smallvec", "1.6.0", True),
    ("RUSTSEC-2021-0003.json", "crates.io", "smallvec", "0.6.12", True),
    ("RUSTSEC-2021-0003.json", "crates.io", "smallvec", "0.6.14", False),
    ("RUSTSEC-2021-0003.json", "crates.io", "smallvec", "1.6.1", False),
    ("RUSTSEC-2021-0003.json", "crates.io", "smallvec", "0.6.9", False),
    ("GHSA-vr8q-g5c7-m54m.json", "RubyGems", "nokogiri", "1.10.0", True),
    ("GHSA-vr8q-g5c7-m54m.json", "RubyGems", "nokogiri", "1.11.0.rc4", False),
    ("last-affected.json", "Packagist", "guzzlehttp/guzzle", "6.5.0", True),
    ("last-affected.json", "Packagist", "guzzlehttp/guzzle", "6.5.1", False),
    ("versions-list.json", "PyPI", "pkg-with-list", "1.0", True),
    ("versions-list.json", "PyPI", "pkg-with-list", "1.1", False),
])
def test_osv_matching(record: str, eco: str, name: str, version: str, hit: bool) -> None:
    assert is_affected(osv(record), Package(eco, name, version, "x")) is hit


def test_db_import_folder_zip_and_lookup(tmp_path: Path) -> None:
    zpath = tmp_path / "all.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        for f in (FIXTURES / "osv").glob("*.json"):
            zf.write(f, f.name)
    db = OsvDatabase(tmp_path / "osv.sqlite")
    added = db.add(read_records(zpath))
    assert added == len(list((FIXTURES / "osv").glob("*.json")))
    assert db.add(read_records(FIXTURES / "osv")) == added  # re-import replaces
    assert db.count() == added
    assert [r["id"] for r in db.lookup("PyPI", "Jinja2")] == ["PYSEC-2021-66"]
    db.close()


def test_db_import_rejects_bad_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(SecurityConfigError, match="bad.json: not valid JSON"):
        list(read_records(bad))
    bad.write_text('{"affected": []}')
    with pytest.raises(SecurityConfigError, match=r"\[0\]\.id"):
        list(read_records(bad))
