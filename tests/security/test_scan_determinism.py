"""The same audit gives the same findings, run after run, in one process or in workers.

Each fixture file's finding hangs on which of two same-named nested helpers the taint
engine takes (the first in the file): py-tree-sitter hands query captures back in no
stable order, and an engine that trusted that order flipped many of these 160 files on
every run (as it flipped one `exec` in pip's vendored pkg_resources: 15, 16, 16 findings).
"""

from __future__ import annotations

from pathlib import Path

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import PARALLEL_MIN_FILES, AuditOptions, run_audit

PAIR = '''{filler}


def reader_{n}():
    def get_text_{n}(x):
        return x
    return get_text_{n}


def loader_{n}():
    def get_text_{n}(x):
        return "print({n})"
    return get_text_{n}


def run_{n}(src):
    code = get_text_{n}(src)
    exec(code)
'''
FILLER = "def outer_{n}_{i}():\n    def helper(v):\n        return v + {i}\n    return helper\n"
FILES = PARALLEL_MIN_FILES + 10


def _tree(root: Path) -> list[tuple[str, str, int]]:
    """Write the files; the finding each must give (its `exec` line)."""
    expected = []
    for n in range(FILES):
        filler = "\n\n".join(FILLER.format(n=n, i=i) for i in range(8))
        rel = f"pkg{n % 7}/mod_{n}.py"
        text = PAIR.format(n=n, filler=filler)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        expected.append(("PY-EVAL-002", rel, text.splitlines().index("    exec(code)") + 1))
    return sorted(expected)


def _findings(root: Path, jobs: int) -> list[tuple[str, str, int]]:
    result = run_audit(root, SecurityConfig(), AuditOptions(scanners=("sast",), jobs=jobs))
    assert not result.warnings
    return sorted((f.id, f.location.file, f.location.start_line) for f in result.findings)


def test_first_definition_decides_every_run(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    expected = _tree(root)
    runs = [_findings(root, jobs=1) for _ in range(2)] + [_findings(root, jobs=2) for _ in range(2)]
    for found in runs:
        assert found == expected


def test_constant_helper_first_is_quiet(tmp_path: Path) -> None:
    """Beside it: when the first definition returns a constant, no run reports the exec."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "m.py").write_text(
        'def get_text(x):\n    return "print(1)"\n\n\nclass L:\n    def get_text(self, x):\n'
        '        return x\n\n\ndef run(src):\n    exec(get_text(src))\n')
    for _ in range(3):
        assert _findings(root, jobs=1) == []
