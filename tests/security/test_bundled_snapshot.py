"""Issue 27, part 3: the bundled advisory snapshot flags known-vulnerable packages of every
ecosystem offline, and Node.js Security WG ranges become OSV events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.deps import nodesec
from aiagent.engines.security.deps.osvdb import BundledAdvisories
from aiagent.engines.security.deps.osvmatch import is_affected
from aiagent.engines.security.deps.osvsnapshot import build_snapshot
from aiagent.engines.security.deps.packages import Package
from aiagent.engines.security.engine import AuditOptions, run_audit

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bundled() -> BundledAdvisories:
    return BundledAdvisories()


@pytest.mark.parametrize(("ecosystem", "name", "version", "advisory"), [
    ("PyPI", "django", "2.2.0", "PYSEC-2019-10"),
    ("PyPI", "urllib3", "1.24.1", "PYSEC-2019-132"),
    ("npm", "marked", "0.3.5", "NSWG-ECO-101"),
    ("Go", "golang.org/x/text", "v0.3.0", "GO-2020-0015"),
    ("crates.io", "smallvec", "0.6.0", "RUSTSEC-2018-0003"),
    ("RubyGems", "nokogiri", "1.10.0", "GHSA-242x-7cm6-4w8j"),
    ("Maven", "org.apache.logging.log4j:log4j-core", "2.14.1", "GHSA-jfh8-c2jp-5v3q"),
])
def test_a_known_vulnerable_package_of_each_ecosystem_is_flagged(
        bundled: BundledAdvisories, ecosystem: str, name: str, version: str, advisory: str) -> None:
    package = Package(ecosystem, name, version, "lock")
    assert advisory in {r["id"] for r in bundled.lookup(ecosystem, name) if is_affected(r, package)}


@pytest.mark.parametrize(("ecosystem", "name", "version"), [
    ("PyPI", "urllib3", "99.0.0"),
    ("Maven", "org.apache.logging.log4j:log4j-core", "2.17.1"),
])
def test_a_release_past_every_fix_is_not_flagged(bundled: BundledAdvisories, ecosystem: str,
                                                 name: str, version: str) -> None:
    package = Package(ecosystem, name, version, "lock")
    assert not [r for r in bundled.lookup(ecosystem, name) if is_affected(r, package)]


def test_bundled_snapshot_has_its_notice_and_summaries_only_where_licensed(
        bundled: BundledAdvisories) -> None:
    notice = (REPO / "src/aiagent/engines/security/data/OSV-NOTICE.md").read_text()
    for source in ("pypa/advisory-database", "golang/vulndb", "rustsec/advisory-db",
                   "rubysec/ruby-advisory-db", "nodejs/security-wg", "github/advisory-database",
                   "CC-BY-4.0"):
        assert source in notice
    ruby = [r for r in bundled.records
            if r["affected"][0]["package"]["ecosystem"] == "RubyGems"]
    assert ruby and all(r["summary"] == "" for r in ruby)  # facts only (OSVDB prose)
    assert all(len(r["summary"]) <= 200 for r in bundled.records)


def test_audit_flags_old_django_and_urllib3_offline(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("Django==2.2.0\nurllib3==1.24.1\nrequests==2.32.3\n")
    result = run_audit(tmp_path, SecurityConfig(), AuditOptions(jobs=1, scanners=("dependencies",)))
    packages = {f.metadata["package"] for f in result.findings}
    assert {"django", "urllib3"} <= {p.lower() for p in packages}
    assert not result.warnings or not any("offline" in w for w in result.warnings)


@pytest.mark.parametrize(("spec", "events"), [
    ("<=99.999.99999", [[{"introduced": "0"}, {"last_affected": "99.999.99999"}]]),
    (">=1.0.0 <1.2.3 || >=2.0.0 <2.0.5",
     [[{"introduced": "1.0.0"}, {"fixed": "1.2.3"}], [{"introduced": "2.0.0"}, {"fixed": "2.0.5"}]]),
    ("<= 1.4", [[{"introduced": "0"}, {"fixed": "1.5.0"}]]),
    ("^0.2.3", [[{"introduced": "0.2.3"}, {"fixed": "0.3.0"}]]),
    ("~1.2.3", [[{"introduced": "1.2.3"}, {"fixed": "1.3.0"}]]),
    ("<=2.x", [[{"introduced": "0"}, {"fixed": "3.0.0"}]]),
    ("1.2.3", [[{"introduced": "1.2.3"}, {"last_affected": "1.2.3"}]]),
    ("*", [[{"introduced": "0"}]]),
    ("<0.0.0", []),  # nothing affected
    ("latest please", []),  # unreadable: skipped, not guessed
])
def test_node_security_wg_ranges(spec: str, events: list[list[dict[str, str]]]) -> None:
    assert nodesec.affected_ranges(spec) == events


def test_node_security_wg_files_build_into_the_snapshot(tmp_path: Path) -> None:
    folder = tmp_path / "vuln" / "npm"
    folder.mkdir(parents=True)
    (folder / "101.json").write_text(json.dumps({
        "id": 101, "updated_at": "2017-01-02", "title": "Cross-site scripting", "module_name": "marked",
        "cves": ["CVE-2016-10531"], "vulnerable_versions": "<=0.3.5", "patched_versions": ">=0.3.6",
        "cvss_vector": "CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N"}))
    doc = build_snapshot([tmp_path])
    (record,) = doc["records"]
    assert record["id"] == "NSWG-ECO-101" and record["aliases"] == ["CVE-2016-10531"]
    assert record["affected"] == [{"package": {"ecosystem": "npm", "name": "marked"}, "ranges": [
        {"type": "SEMVER", "events": [{"introduced": "0"}, {"last_affected": "0.3.5"}]}]}]
    assert is_affected(record, Package("npm", "marked", "0.3.5", "lock"))
    assert not is_affected(record, Package("npm", "marked", "0.3.6", "lock"))


def test_the_snapshot_is_read_once_per_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch worker audits many repositories: the bundled snapshot is decompressed and
    indexed for the first audit only (issue 32: shared work loaded once per worker)."""
    from aiagent.engines.security.deps import osvdb

    reads: list[int] = []
    real = osvdb.load_bundled

    def counted() -> dict:
        reads.append(1)
        return real()

    monkeypatch.setattr(osvdb, "load_bundled", counted)
    osvdb.bundled_advisories.cache_clear()
    try:
        for n in range(3):
            project = tmp_path / f"p{n}"
            project.mkdir()
            (project / "requirements.txt").write_text("django==2.2.0\n")
            result = run_audit(project, SecurityConfig(), AuditOptions(jobs=1, scanners=("dependencies",)))
            assert any("PYSEC-2019-10" in json.dumps(f.to_dict()) for f in result.findings)
    finally:
        osvdb.bundled_advisories.cache_clear()
    assert len(reads) == 1
