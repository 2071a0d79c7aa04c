"""An audit loads the taint spec of the languages it meets, not all of them, and gets
exactly the spec that loading them all gives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from aiagent.security.dataflow.spec import _owners, spec_for, specs

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
        "from aiagent.security.config import SecurityConfig\n"
        "from aiagent.security.engine import AuditOptions, run_audit\n"
        "from aiagent.security.dataflow import spec\n"
        "r = run_audit(Path(sys.argv[1]), SecurityConfig(), AuditOptions(scanners=('sast',), jobs=1))\n"
        "print(sorted({f.id for f in r.findings}), spec._parse.cache_info().currsize)\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, check=True).stdout
    assert "PY-CMDI" in out
    assert out.strip().endswith(" 1"), out  # one spec file parsed
