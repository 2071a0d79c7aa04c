"""grep_files / search / glob: Codex formats, and the same results with and without rg."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from tool_harness import Harness

ENGINES = [{}, {"search": {"engine": "python"}}]


def make_tree(ws: Harness) -> None:
    root = ws.root
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "build").mkdir()
    (root / ".hidden").mkdir()
    files = {
        "src/a.py": "import os\ndef alpha():\n    return 'needle'\n",
        "src/pkg/b.py": "x = 1\n# needle here\ny = 2\nz = 3\n",
        "src/c.ts": "const needle = 1;\n",
        "src/d.tsx": "export const Needle = 2;\n",
        "notes.log": "needle in a log\n",
        "keep.log": "needle kept\n",
        "build/out.py": "needle built\n",
        ".hidden/h.py": "needle hidden\n",
        "blob.bin": "needle\x00binary",
        "src/pkg/.ignore": "skip_me.py\n",
        "src/pkg/skip_me.py": "needle ignored\n",
    }
    for i, (name, text) in enumerate(files.items()):
        path = root / name
        path.write_text(text)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))


@pytest.mark.parametrize("settings", ENGINES)
def test_grep_files(ws: Harness, settings: dict) -> None:
    make_tree(ws)
    ws.ctx.settings.update(settings)
    out = ws.ok("grep_files", {"pattern": "needle"})
    root = ws.root.resolve()
    assert out.splitlines() == [f"{root}/{p}" for p in ("keep.log", "src/c.ts", "src/pkg/b.py", "src/a.py")]
    assert ws.ok("grep_files", {"pattern": "needle", "include": "*.{ts,tsx}"}) == f"{root}/src/c.ts"
    assert ws.ok("grep_files", {"pattern": "nothing-matches-this"}) == "No matches found."
    assert len(ws.ok("grep_files", {"pattern": "needle", "limit": 2}).splitlines()) == 2


def test_grep_files_errors(ws: Harness) -> None:
    assert ws.err("grep_files", {"pattern": "  "}) == "pattern must not be empty"
    assert ws.err("grep_files", {"pattern": "x", "limit": 0}) == "limit must be greater than zero"
    assert ws.err("grep_files", {"pattern": "x", "path": "nope"}).startswith("unable to access `")


@pytest.mark.parametrize("settings", ENGINES)
def test_search_with_context(ws: Harness, settings: dict) -> None:
    make_tree(ws)
    ws.ctx.settings.update(settings)
    out = ws.ok("search", {"pattern": "needle", "context": 1, "glob": "*.py"})
    assert out == "\n".join([
        "src/a.py-2-def alpha():",
        "src/a.py:3:    return 'needle'",
        "--",
        "src/pkg/b.py-1-x = 1",
        "src/pkg/b.py:2:# needle here",
        "src/pkg/b.py-3-y = 2",
        "--",
        "src/pkg/skip_me.py:1:needle ignored",
    ])
    assert ws.ok("search", {"pattern": "NEEDLE", "case_insensitive": True, "glob": "*.tsx"}) == (
        "src/d.tsx:1:export const Needle = 2;"
    )
    assert ws.ok("search", {"pattern": "alpha(", "fixed_strings": True}) == "src/a.py:2:def alpha():"
    assert ws.ok("search", {"pattern": "((", "fixed_strings": True}) == "No matches found."
    limited = ws.ok("search", {"pattern": "needle", "max_results": 1})
    assert limited.endswith("more matches not shown; narrow the search]")


def test_same_results_both_engines(ws: Harness) -> None:
    make_tree(ws)
    rg = [ws.ok(t, a) for t, a in (("search", {"pattern": "e"}), ("glob", {"pattern": "**/*.py"}))]
    ws.ctx.settings["search"] = {"engine": "python"}
    py = [ws.ok(t, a) for t, a in (("search", {"pattern": "e"}), ("glob", {"pattern": "**/*.py"}))]
    assert rg == py


@pytest.mark.parametrize("settings", ENGINES)
def test_glob(ws: Harness, settings: dict) -> None:
    make_tree(ws)
    ws.ctx.settings.update(settings)
    # as with rg --glob, a file the glob names is listed even when an ignore file skips it
    assert ws.ok("glob", {"pattern": "*.py"}).splitlines() == ["src/a.py", "src/pkg/b.py", "src/pkg/skip_me.py"]
    assert ws.ok("glob", {"pattern": "src/*.ts"}) == "src/c.ts"
    assert ws.ok("glob", {"pattern": "*.nothing"}) == "No files found."


def test_mtime_order(ws: Harness) -> None:
    for name in ("old.txt", "new.txt"):
        (ws.root / name).write_text("hit\n")
        time.sleep(0.01)
    os.utime(ws.root / "old.txt", (1, 1))
    out = ws.ok("grep_files", {"pattern": "hit"})
    assert [line.rsplit("/", 1)[1] for line in out.splitlines()] == ["new.txt", "old.txt"]


def test_the_python_walk_is_bounded_in_time_as_rg_is(ws: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    from aiagent.agent.tools import walk

    make_tree(ws)
    now = [0.0]

    def clock() -> float:
        now[0] += 10.0  # every look at the clock: ten seconds later
        return now[0]

    monkeypatch.setattr(walk, "monotonic", clock)
    python = {"engine": "python"}
    for tool, args in [("grep_files", {"pattern": "needle"}), ("search", {"pattern": "needle"}),
                       ("glob", {"pattern": "*.py"})]:
        assert "timed out after 30 seconds" in ws.err(tool, args, search=python), tool
