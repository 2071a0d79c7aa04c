"""A regex that outruns its time limit is reported, not silently dropped, and not cached.

Wall time depends on machine load, so a skip must never look like "no finding": the
audit warns which rule was skipped on which file, the file's result is not cached (a
quieter machine re-scans it), and every other rule still reports on that file. The
pathological pattern below needs ~10^12 steps on its input: it times out on any machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aiagent.engines.security import regexsafe
from aiagent.engines.security.config import parse_config
from aiagent.engines.security.engine import AuditOptions, run_audit

SLOW = r"(?!zz)(a|aa)+c"  # lookahead: RE2 refuses it, so the time-guarded engine runs it
RULES = {"rules": [
    {"id": "X-SLOW-001", "title": "slow", "severity": "low", "languages": ["python"],
     "pattern": {"type": "regex", "match": SLOW}},
    {"id": "X-MARK-001", "title": "marker", "severity": "low", "languages": ["python"],
     "pattern": {"type": "regex", "match": "(?!zz)MARKER_[0-9]+"}},
]}


@pytest.fixture()
def short_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = regexsafe.SafePattern.__init__.__defaults__ or ()
    monkeypatch.setattr(regexsafe.SafePattern.__init__, "__defaults__", (0.3, *defaults[1:]))


def _audit(root: Path, cache: Path) -> tuple[set[str], list[str]]:
    config = parse_config(RULES, ".security.yaml")
    result = run_audit(root, config, AuditOptions(scanners=("sast",), jobs=1, cache_path=cache))
    return {f.id for f in result.findings}, result.warnings


def test_timed_out_rule_is_a_warning_and_not_cached(tmp_path: Path, short_limit: None) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "slow.py").write_text("x = '" + "a" * 60 + "'\nMARKER_1 = 1\neval(input())\n")
    (root / "fine.py").write_text("MARKER_2 = 2\n")
    cache = tmp_path / "cache.sqlite"
    for _ in range(2):  # the second run would reuse a cached result if one had been stored
        ids, warnings = _audit(root, cache)
        assert warnings == ["slow.py: sast: rule X-SLOW-001 skipped on this file: its regex ran"
                            " past the 0.3 s limit"]
        assert {"X-MARK-001", "PY-EVAL-001"} <= ids  # the other rules still ran on slow.py


def test_fast_regex_rules_warn_nothing(tmp_path: Path, short_limit: None) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "ok.py").write_text("x = 'aaac'\nMARKER_3 = 3\n")
    ids, warnings = _audit(root, tmp_path / "cache.sqlite")
    assert warnings == []
    assert {"X-SLOW-001", "X-MARK-001"} <= ids
