"""Discovery, fingerprints, overrides, the cache, parallel scanning and the correlator."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from aiagent.engines.security import engine as engine_mod
from aiagent.engines.security.config import load_config, parse_config
from aiagent.engines.security.discovery import discover
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Severity

VULN = 'import os\n\ndef run(host):\n    os.system("ping " + host)\n'


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_discovery_skips_and_counts(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "build/\n*.log\n")
    write(tmp_path, "app.py", VULN)
    write(tmp_path, "build/out.py", VULN)
    write(tmp_path, "debug.log", "x")
    write(tmp_path, "sub/.gitignore", "secret.py\n")
    write(tmp_path, "sub/secret.py", VULN)
    write(tmp_path, "sub/ok.py", VULN)
    write(tmp_path, "node_modules/x/index.js", "eval(a)")
    write(tmp_path, "logo.png", b"\x89PNG")
    write(tmp_path, "dist.min.js", "var a=1")
    write(tmp_path, "big.py", "x = 1\n" * 200_000)
    write(tmp_path, "gen/skip.py", VULN)
    write(tmp_path, "sub/__pycache__/ok.cpython-311.py", VULN)  # a cache, not vendored code
    inv = discover(tmp_path, excludes=("gen/",))
    assert sorted(f.rel for f in inv.files) == [".gitignore", "app.py", "sub/.gitignore", "sub/ok.py"]
    assert inv.skipped == {"ignored": 3, "vendored": 1, "binary": 1, "minified": 1, "huge": 1,
                           "excluded": 1, "cache": 1}


def test_binary_content_without_extension_is_skipped(tmp_path: Path) -> None:
    write(tmp_path, "blob", b"\x00\x01secret")
    result = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=1))
    assert result.skipped["binary"] == 1 and result.files_scanned == 0


def test_fingerprint_survives_line_moves(tmp_path: Path) -> None:
    write(tmp_path, "app.py", VULN)
    first = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=1)).findings
    write(tmp_path, "app.py", "# a new comment\n\n\n" + VULN)
    second = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=1)).findings
    assert [f.location.start_line for f in first] != [f.location.start_line for f in second]
    assert [f.fingerprint for f in first] == [f.fingerprint for f in second]


def test_overrides_change_severity_and_disable(tmp_path: Path) -> None:
    write(tmp_path, "app.py", VULN + "import hashlib\nhashlib.md5(b'x')\n")
    config = parse_config({"overrides": [
        {"id": "PY-CMDI-001", "severity": "info", "note": "internal tool"},
        {"id": "PY-CRYPTO-001", "enabled": False},
    ]}, ".security.yaml")
    findings = run_audit(tmp_path, config, AuditOptions(jobs=1)).findings
    (cmdi,) = [f for f in findings if f.id == "PY-CMDI-001"]
    assert cmdi.severity is Severity.INFO and cmdi.metadata["override_note"] == "internal tool"
    assert cmdi.metadata["original_severity"] == "high"
    assert not [f for f in findings if f.id == "PY-CRYPTO-001"]


@pytest.mark.parametrize(("text", "message"), [
    ("rules: {}\n", "x.yaml: rules: must be a list"),
    ("ci:\n  fail_on: severe\n", "x.yaml: ci.fail_on: unknown severity 'severe'"),
    ("ci:\n  max_findings: -1\n", "x.yaml: ci.max_findings: must be a non-negative integer"),
    ("overrides:\n  - severity: low\n", "x.yaml: overrides[0].id: required string"),
    ("colour: red\n", "x.yaml: colour: unknown key"),
    ("rules: [\n", "x.yaml: line 2: invalid YAML"),
])
def test_bad_config_names_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "x.yaml", text)
    with pytest.raises(SecurityConfigError) as info:
        load_config(path)
    assert str(info.value).replace(str(tmp_path) + "/", "").startswith(message)


def test_cache_makes_unchanged_files_free(tmp_path: Path) -> None:
    write(tmp_path, "src/app.py", VULN)
    write(tmp_path, "src/b.py", "x = 1\n")
    options = AuditOptions(jobs=1, cache_path=tmp_path / "cache.sqlite")
    first = run_audit(tmp_path / "src", parse_config({}, "x"), options)
    second = run_audit(tmp_path / "src", parse_config({}, "x"), options)
    assert (first.cached_files, second.cached_files) == (0, 2)
    assert [f.fingerprint for f in first.findings] == [f.fingerprint for f in second.findings]
    write(tmp_path, "src/b.py", "x = 2\n")
    assert run_audit(tmp_path / "src", parse_config({}, "x"), options).cached_files == 1


def test_parallel_scan_matches_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(12):
        write(tmp_path, f"pkg/m{i}.py", VULN)
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_FILES", 4)
    monkeypatch.setattr(engine_mod, "CHUNK_FILES", 3)
    serial = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=1))
    parallel = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=2))
    assert [f.to_dict() for f in serial.findings] == [f.to_dict() for f in parallel.findings]
    assert len(parallel.findings) >= 12


def test_attack_chain_for_unauthenticated_injection(tmp_path: Path) -> None:
    write(tmp_path, "app.py", (
        "@app.route('/u')\ndef u():\n    cur.execute('SELECT ' + request.args['q'])\n\n"
        "@app.route('/a')\n@login_required\ndef a():\n    cur.execute('SELECT ' + request.args['q'])\n"))
    result = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=1))
    (chain,) = [c for c in result.chains if c.id.startswith("CHAIN-UNAUTH-INJECTION")]
    assert chain.severity is Severity.CRITICAL
    assert [s.location.start_line for s in chain.steps] == [1, 3]


def test_prioritizer_scores_risky_files_first(tmp_path: Path) -> None:
    write(tmp_path, "auth.py", "def login(request):\n    jwt.decode(request.json['t'])\n    os.system('x')\n")
    write(tmp_path, "util.py", "def add(a, b):\n    return a + b\n")
    result = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=1))
    assert list(result.file_scores)[0] == "auth.py"
    assert result.file_scores.get("util.py", 0) < result.file_scores["auth.py"]


def test_banned_dependency(tmp_path: Path) -> None:
    write(tmp_path, "go.mod", "module x\n\nrequire github.com/dgrijalva/jwt-go v3.2.0+incompatible\n")
    config = parse_config({"dependencies": {"banned": [
        {"package": "github.com/dgrijalva/jwt-go", "reason": "Unmaintained"}]}}, "x")
    findings = run_audit(tmp_path, config, AuditOptions(jobs=1)).findings
    (ban,) = [f for f in findings if f.id == "DEP-BANNED-001"]
    assert ban.location.start_line == 3 and ban.description == "Unmaintained"


def test_finding_round_trips_through_dict(tmp_path: Path) -> None:
    write(tmp_path, "app.py", VULN)
    (finding,) = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=1)).findings
    assert type(finding).from_dict(finding.to_dict()) == finding
    assert replace(finding, fingerprint="").with_fingerprint().fingerprint == finding.fingerprint


def test_balanced_chunks_cover_every_file_once_largest_first() -> None:
    sizes = [10, 500_000, 3, 40_000, 0, 80_000, *([1_000] * 100)]
    chunks = engine_mod.balanced_chunks(sizes, 2)
    flat = [i for chunk in chunks for i in chunk]
    assert sorted(flat) == list(range(len(sizes)))
    assert chunks[0][0] == 1  # the largest file is handed out first
    assert all(len(c) <= engine_mod.CHUNK_FILES for c in chunks)
    weight = [sum(sizes[i] for i in c) for c in chunks]
    assert weight[-1] < weight[0]  # the tail is small: no worker waits alone on a big chunk
    assert engine_mod.balanced_chunks([], 2) == []


def test_parallel_outcomes_keep_file_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks go out biggest first; outcomes still come back in discovery order."""
    for i in range(12):
        write(tmp_path, f"pkg/m{i:02}.py", VULN + "\n" * (i * 50))
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_FILES", 4)
    monkeypatch.setattr(engine_mod, "CHUNK_FILES", 2)
    seen: list[tuple[int, int]] = []
    options = AuditOptions(jobs=2, progress=lambda done, total: seen.append((done, total)))
    parallel = run_audit(tmp_path, parse_config({}, "x"), options)
    serial = run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=1))
    assert [f.to_dict() for f in parallel.findings] == [f.to_dict() for f in serial.findings]
    assert seen[-1] == (12, 12) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_project_scanner_error_while_workers_scan(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A project scanner fails while the workers scan: the error comes out (no hang), and
    the same audit without it still works."""
    from aiagent.engines.security.scanners.registry import register_scanner, unregister_scanner

    class Broken:
        name = "broken"

        def scan_project(self, inventory: object, ctx: object) -> list[object]:
            raise RuntimeError("broken project scanner")

    for i in range(8):
        write(tmp_path, f"m{i}.py", VULN)
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_FILES", 4)
    register_scanner("broken", lambda config: Broken())
    try:
        with pytest.raises(RuntimeError, match="broken project scanner"):
            run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=2))
    finally:
        unregister_scanner("broken")
    assert len(run_audit(tmp_path, parse_config({}, "x"), AuditOptions(jobs=2)).findings) >= 8
