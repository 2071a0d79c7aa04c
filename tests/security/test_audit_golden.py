"""The audit of a fixed tree gives exactly the recorded findings JSON: serial, in worker
processes, and from the scan cache.

This guards the engine's speed work (one query pass per file, pre-checks, worker split,
cache writes): an optimisation must not change a single byte of the findings. After an
intended change of rules or findings, regenerate with ``UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from sec_helpers import GOLDEN, HERE

import aiagent.engines.security.engine as engine_mod
from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.engines.security.report.json_report import as_dict

REPO = HERE.parents[1]
SOURCES = {  # tree folder -> repository folder
    "corpus": HERE / "corpus",
    "vulnerable-app": REPO / "examples" / "vulnerable-app",
    "ios-app": HERE / "fixtures" / "ios-app",
    "lockfiles": HERE / "fixtures" / "lockfiles",
}
GOLDEN_FILE = GOLDEN / "audit-tree.findings.json"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden-tree") / "tree"
    for name, source in SOURCES.items():
        shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _render(root: Path, options: AuditOptions) -> str:
    result = run_audit(root, SecurityConfig(), options)
    return json.dumps(as_dict(result), indent=1, sort_keys=True) + "\n"


def _golden(text: str) -> str:
    if os.environ.get("UPDATE_GOLDEN") or not GOLDEN_FILE.exists():
        GOLDEN_FILE.write_text(text, encoding="utf-8")
    return GOLDEN_FILE.read_text(encoding="utf-8")


def test_serial_audit_matches_golden(tree: Path) -> None:
    text = _render(tree, AuditOptions(jobs=1))
    golden = _golden(text)
    assert json.loads(text)["summary"]["total"] >= 40  # the tree is not trivially quiet
    assert text == golden


def test_parallel_audit_matches_golden(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_mod, "PARALLEL_MIN_FILES", 4)
    monkeypatch.setattr(engine_mod, "CHUNK_FILES", 3)
    assert _render(tree, AuditOptions(jobs=2)) == _golden(_render(tree, AuditOptions(jobs=1)))


def test_cached_audit_matches_golden(tree: Path, tmp_path: Path) -> None:
    options = AuditOptions(jobs=1, cache_path=tmp_path / "cache.sqlite")
    first, second = _render(tree, options), _render(tree, options)
    assert first == second == _golden(_render(tree, AuditOptions(jobs=1)))
