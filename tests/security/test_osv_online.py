"""The online OSV lookup against a fake OSV API on 127.0.0.1: batching, pagination, the
on-disk cache (warm runs, TTL, corrupt files) and graceful failure."""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sec_helpers import FIXTURES

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.deps.osv_online import (
    WARNING_PREFIX,
    OnlineLookupError,
    lookup,
    online_records,
)
from aiagent.engines.security.deps.osv_settings import OsvOnlineSettings
from aiagent.engines.security.deps.packages import Package
from aiagent.engines.security.engine import AuditOptions, run_audit


def _load_fake() -> Any:
    path = FIXTURES / "osv-online" / "fake_osv.py"
    spec = importlib.util.spec_from_file_location("fake_osv", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["fake_osv"] = module
    spec.loader.exec_module(module)
    return module


fake_osv = _load_fake()
REAL_IDS = ("GHSA-jf85-cpcp-j695", "GHSA-vr8q-g5c7-m54m", "GO-2021-0113", "PYSEC-2021-66",
            "RUSTSEC-2021-0003")


def all_records() -> list[dict[str, Any]]:
    local = [json.loads((FIXTURES / "osv" / f"{i}.json").read_text()) for i in REAL_IDS]
    return fake_osv.real_records() + local


def pkg(ecosystem: str, name: str, version: str) -> Package:
    return Package(ecosystem, name, version, "requirements.txt", 1)


APP = [pkg("PyPI", "Jinja2", "3.1.2"), pkg("PyPI", "requests", "2.25.1"),
       pkg("npm", "express", "4.18.2"), pkg("npm", "lodash", "4.17.21"),
       pkg("Go", "golang.org/x/text", "v0.3.5")]


def settings(url: str, tmp_path: Path, **kw: Any) -> OsvOnlineSettings:
    return OsvOnlineSettings(url=url, cache_dir=tmp_path / "osv", **kw)


def ids(records: dict[tuple[str, str, str], list[dict[str, Any]]]) -> dict[str, set[str]]:
    return {key[1]: {r["id"] for r in found} for key, found in records.items()}


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_batch_then_full_records(tmp_path: Path) -> None:
    with fake_osv.FakeOsv(all_records()) as fake:
        found = lookup(APP, settings(fake.url, tmp_path))
    assert ids(found) == {
        "jinja2": {"GHSA-h75v-3vvj-5mfj", "PYSEC-2021-66"}, "requests": {"GHSA-9wx4-h78v-vm56"},
        "express": {"GHSA-qw6h-vgh9-j6wx"}, "lodash": {"GHSA-jf85-cpcp-j695"},
        "golang.org/x/text": {"GO-2021-0113"},
    }
    (post,) = [body for method, _, body in fake.requests if method == "POST"]
    assert post["queries"][0] == {"package": {"name": "Jinja2", "ecosystem": "PyPI"}, "version": "3.1.2"}
    assert post["queries"][4]["version"] == "0.3.5"  # Go versions go without their "v"
    assert fake.count("GET", "/v1/vulns/") == 6
    record = found[("PyPI", "jinja2", "3.1.2")]
    assert {r["id"]: r for r in record}["GHSA-h75v-3vvj-5mfj"]["affected"][0]["ranges"]


def test_more_than_1000_packages_are_split_into_batches(tmp_path: Path) -> None:
    many = [pkg("PyPI", f"package-{i}", "1.0") for i in range(2500)]
    with fake_osv.FakeOsv(all_records()) as fake:
        found = lookup(many, settings(fake.url, tmp_path))
    sizes = [len(body["queries"]) for method, _, body in fake.requests if method == "POST"]
    assert sizes == [1000, 1000, 500]
    assert len(found) == 2500 and not any(found.values())


def test_pages_are_followed_with_page_token(tmp_path: Path) -> None:
    with fake_osv.FakeOsv(all_records(), page_size=1) as fake:
        found = lookup(APP[:3], settings(fake.url, tmp_path))
    posts = [body["queries"] for method, _, body in fake.requests if method == "POST"]
    assert [len(q) for q in posts] == [3, 1]
    assert posts[1] == [{"package": {"name": "Jinja2", "ecosystem": "PyPI"}, "version": "3.1.2",
                         "page_token": "1"}]
    assert ids(found)["jinja2"] == {"GHSA-h75v-3vvj-5mfj", "PYSEC-2021-66"}


def test_a_runaway_page_token_is_a_failure_not_a_loop(tmp_path: Path) -> None:
    class Endless(fake_osv.FakeOsv):
        def _one(self, query: dict[str, Any]) -> dict[str, Any]:
            return {"vulns": [], "next_page_token": "again"}

    with Endless(all_records()) as fake, pytest.raises(OnlineLookupError, match="page tokens"):
        lookup(APP[:1], settings(fake.url, tmp_path))


def test_warm_cache_makes_no_request(tmp_path: Path) -> None:
    with fake_osv.FakeOsv(all_records()) as fake:
        first = lookup(APP, settings(fake.url, tmp_path))
        before = len(fake.requests)
        second = lookup(APP, settings(fake.url, tmp_path))
        assert len(fake.requests) == before
    assert second == first
    assert (tmp_path / "osv" / "queries").is_dir() and (tmp_path / "osv" / "vulns").is_dir()


def test_ttl_expiry_asks_again_and_refetches_only_changed_records(tmp_path: Path) -> None:
    now = [1_000_000.0]
    with fake_osv.FakeOsv(all_records()) as fake:
        opts = settings(fake.url, tmp_path, cache_hours=24)
        lookup(APP, opts, clock=lambda: now[0])
        now[0] += 23 * 3600
        lookup(APP, opts, clock=lambda: now[0])
        assert fake.count("POST") == 1  # still fresh
        now[0] += 2 * 3600
        fake.records["GHSA-h75v-3vvj-5mfj"]["modified"] = "2025-01-01T00:00:00Z"
        found = lookup(APP, opts, clock=lambda: now[0])
    assert fake.count("POST") == 2  # expired: the batch is asked again ...
    assert fake.count("GET") == 6 + 1  # ... but only the changed record is fetched again
    jinja = {r["id"]: r for r in found[("PyPI", "jinja2", "3.1.2")]}
    assert jinja["GHSA-h75v-3vvj-5mfj"]["modified"] == "2025-01-01T00:00:00Z"


def test_corrupt_cache_files_are_ignored_and_rewritten(tmp_path: Path) -> None:
    with fake_osv.FakeOsv(all_records()) as fake:
        first = lookup(APP, settings(fake.url, tmp_path))
        files = sorted((tmp_path / "osv").rglob("*.json"))
        junk = [b"\x00{not json", b"[]", b'{"format": 1, "fetched": "soon"}', b"", b"\xff\xfe"]
        for i, file in enumerate(files):
            file.write_bytes(junk[i % len(junk)])
        again = lookup(APP, settings(fake.url, tmp_path))
        assert fake.count("POST") == 2
    assert again == first
    for file in files:
        assert json.loads(file.read_text())["format"] == 1


def test_unwritable_cache_still_answers(tmp_path: Path) -> None:
    (tmp_path / "osv").write_text("a file where the cache folder should be")
    with fake_osv.FakeOsv(all_records()) as fake:
        found = lookup(APP, settings(fake.url, tmp_path))
    assert ids(found)["requests"] == {"GHSA-9wx4-h78v-vm56"}


def test_connection_refused_is_one_warning(tmp_path: Path) -> None:
    warnings: list[str] = []
    started = time.monotonic()
    assert online_records(APP, settings(closed_port_url(), tmp_path), warnings) == {}
    assert time.monotonic() - started < 5
    assert len(warnings) == 1 and warnings[0].startswith(WARNING_PREFIX)
    assert "cannot reach" in warnings[0] and "\n" not in warnings[0]


def test_server_errors_are_retried_once(tmp_path: Path) -> None:
    warnings: list[str] = []
    with fake_osv.FakeOsv(all_records()) as fake:
        fake.fail_status, fake.fail_times = 503, -1
        assert online_records(APP, settings(fake.url, tmp_path), warnings) == {}
        assert fake.count("POST") == 2
        assert warnings == [f"{WARNING_PREFIX} {fake.url}/v1/querybatch answered HTTP 503; "
                            "using the local advisory index only"]
        fake.fail_times = 1  # one hiccup, then an answer
        found = online_records(APP, settings(fake.url, tmp_path), warnings)
    assert len(warnings) == 1 and ids(found)["express"] == {"GHSA-qw6h-vgh9-j6wx"}


def test_a_server_that_hangs_is_cut_off_at_the_time_budget(tmp_path: Path) -> None:
    warnings: list[str] = []
    with fake_osv.FakeOsv(all_records()) as fake:
        fake.hang_s = 5.0
        started = time.monotonic()
        assert online_records(APP, settings(fake.url, tmp_path, timeout_s=1.0), warnings) == {}
        elapsed = time.monotonic() - started
    assert elapsed < 2.5
    assert warnings == [f"{WARNING_PREFIX} no answer from {fake.url} within 1 s; "
                        "using the local advisory index only"]


def test_a_lookup_cut_short_keeps_what_it_got(tmp_path: Path) -> None:
    warnings: list[str] = []
    with fake_osv.FakeOsv(all_records()) as fake:
        fake.hang_s, fake.hang_path = 5.0, "/v1/vulns/GO-2021-0113"
        opts = settings(fake.url, tmp_path, timeout_s=1.0)
        assert online_records(APP, opts, warnings) == {} and len(warnings) == 1
        fake.hang_s, before = 0.0, len(fake.requests)
        found = online_records(APP, opts, warnings)
        assert fake.requests[before:] == [("GET", "/v1/vulns/GO-2021-0113", None)]
    assert len(warnings) == 1 and ids(found)["golang.org/x/text"] == {"GO-2021-0113"}


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    (root / "requirements.txt").write_text("jinja2==3.1.2\nrequests==2.25.1\n")
    return root


def _audit(root: Path, online: OsvOnlineSettings | None) -> tuple[set[str], list[str]]:
    opts = AuditOptions(scanners=("dependencies",), jobs=1, osv_online=online)
    result = run_audit(root, SecurityConfig(), opts)
    return {f.id for f in result.findings}, result.warnings


def test_audit_merges_api_records_through_the_same_matcher(tmp_path: Path) -> None:
    root = _project(tmp_path)
    offline, _ = _audit(root, None)
    with fake_osv.FakeOsv(all_records()) as fake:
        online, warnings = _audit(root, settings(fake.url, tmp_path))
    assert offline and warnings == []
    # PYSEC-2021-66 came back from the (version-blind) API but does not affect jinja2 3.1.2
    assert online == offline | {"GHSA-h75v-3vvj-5mfj", "GHSA-9wx4-h78v-vm56"}


def test_audit_with_the_server_down_keeps_local_results(tmp_path: Path) -> None:
    root = _project(tmp_path)
    offline, _ = _audit(root, None)
    found, warnings = _audit(root, settings(closed_port_url(), tmp_path))
    assert found == offline
    assert len(warnings) == 1 and warnings[0].startswith(WARNING_PREFIX)


def test_withdrawn_records_from_the_api_never_match(tmp_path: Path) -> None:
    """A newer withdrawn copy from the API retracts the bundled record of the same id."""
    from aiagent.engines.security.deps.osvdb import BundledAdvisories

    root = _project(tmp_path)
    offline, _ = _audit(root, None)
    assert "GHSA-h5c8-rqwp-cp95" in offline  # jinja2 3.1.2, from the bundled snapshot
    (bundled,) = [r for r in BundledAdvisories().lookup("PyPI", "jinja2")
                  if r["id"] == "GHSA-h5c8-rqwp-cp95"]
    retracted = {**bundled, "modified": "2099-01-01T00:00:00Z", "withdrawn": "2099-01-01T00:00:00Z"}
    with fake_osv.FakeOsv([*all_records(), retracted]) as fake:
        online, warnings = _audit(root, settings(fake.url, tmp_path))
    assert warnings == []
    assert "GHSA-h5c8-rqwp-cp95" not in online
    assert "GHSA-9wx4-h78v-vm56" in online  # the rest of the API's answer still counts
