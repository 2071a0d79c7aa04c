"""An audit loads the taint spec of the languages it meets, not all of them, and gets
exactly the spec that loading them all gives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aiagent.engines.security.dataflow.spec import _owners, spec_for, specs

LANGUAGES = ("python", "javascript", "typescript", "tsx", "java", "go", "php", "ruby")


def test_one_language_is_the_same_spec_as_all_loaded() -> None:
    assert _owners() is not None  # every built-in spec names its languages on one line
    everything = specs()
    for language in LANGUAGES:
        assert spec_for(language) == everything[language], language
    assert spec_for("cobol") is None and "cobol" not in everything


def test_python_audit_parses_only_the_python_spec(tmp_path: Path) -> None:
    """In a fresh process (the specs are cached per process): a Python file is audited,
    with a finding, and only rules/taint/python.yaml was parsed."""
    (tmp_path / "app.py").write_text(
        "import os\nfrom flask import request\n\n\ndef run():\n    os.system(request.args['c'])\n")
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from aiagent.engines.security.config import SecurityConfig\n"
        "from aiagent.engines.security.engine import AuditOptions, run_audit\n"
        "from aiagent.engines.security.dataflow import spec\n"
        "r = run_audit(Path(sys.argv[1]), SecurityConfig(), AuditOptions(scanners=('sast',), jobs=1))\n"
        "print(sorted({f.id for f in r.findings}), spec._parse.cache_info().currsize)\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, check=True).stdout
    assert "PY-CMDI" in out
    assert out.strip().endswith(" 1"), out  # one spec file parsed


def test_remembered_lookups_answer_as_fresh_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """The spec remembers its lookups (names repeat): asked twice, or after the memory is
    cleared at its cap, each lookup answers as the uncached one."""
    from aiagent.engines.security.dataflow import spec as spec_mod

    monkeypatch.setattr(spec_mod, "MEMO_CAP", 7)
    python = spec_for("python")
    assert python is not None
    names = ["os.system", "subprocess.run", "open", "request.args.get", "int", "str",
             "cursor.execute", "x.y", "shlex.quote", "os.path.join", "html.escape", "eval"]
    for _ in range(3):
        for name in names:
            assert python.sinks_for(name, name, False) == python._sinks_for(name, name, False)
            assert python.source_kinds(name) == python._source_kinds(name)
            fresh = [s.clears for s in python.sanitizers if s.matcher.fullmatch(name)]
            assert python.sanitizer(name) == (frozenset().union(*fresh) if fresh else None)
    assert len(python._memo) <= 7
    assert python.sinks_for("os.system", "os.system", False)  # a real sink, found again
    assert python.sanitizer("int") is not None and python.source_kinds("request.args")
