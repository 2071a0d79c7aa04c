"""ast_search: structural shortcuts in every grammar, raw queries, bad input, the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.tools.tool_harness import Harness

from aiagent.agent.tools.ast import KINDS, compiled, matches_in, shortcuts

#: One sample per grammar with a function `foo`, a class `A` deriving `B`, and a call of `bar`.
SAMPLES = {
    "python": ("m.py", "class A(B):\n    def foo(self):\n        bar(1)\n"),
    "javascript": ("m.js", "class A extends B { foo() { bar(1); } }\n"),
    "typescript": ("m.ts", "class A extends B { foo(): void { bar(1); } }\n"),
    "tsx": ("m.tsx", "class A extends B { foo() { bar(1); return <div/>; } }\n"),
    "go": ("m.go", "package m\ntype A struct{ B }\nfunc foo() { bar(1) }\n"),
    "java": ("M.java", "class A extends B { void foo() { bar(1); } }\n"),
    "ruby": ("m.rb", "class A < B\n  def foo\n    bar(1)\n  end\nend\n"),
    "php": ("m.php", "<?php\nclass A extends B { function foo() { bar(1); } }\n"),
    "csharp": ("M.cs", "class A : B { void foo() { bar(1); } }\n"),
    "kotlin": ("M.kt", "class A : B() {\n  fun foo() { bar(1) }\n}\n"),
    "swift": ("m.swift", "class A: B {\n  func foo() { bar(1) }\n}\n"),
}
EXPECTED = {"function": "foo", "class": "A", "call": "bar", "derives": "B"}


def test_every_grammar_has_shortcuts_and_a_sample() -> None:
    from aiagent.infra.syntax.treesitter import GRAMMARS

    assert set(SAMPLES) == set(GRAMMARS) == set(shortcuts())


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_every_shortcut_compiles_and_finds_its_construct(language: str) -> None:
    from aiagent.infra.syntax.treesitter import parse

    _, source = SAMPLES[language]
    tree = parse(language, source.encode())
    kinds = shortcuts()[language]
    assert {"function", "class", "call"} <= set(kinds) <= set(KINDS)
    for kind, query in kinds.items():
        names = [name for _, name, _ in matches_in(tree, compiled(language, query), kind, None)]
        assert EXPECTED[kind] in names, (language, kind, names)


@pytest.fixture
def project(tmp_path: Path) -> Harness:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "models.py").write_text(
        "class Base:\n    pass\n\n\nclass User(Base):\n    def save(self):\n        db.execute('x')\n\n\n"
        "def test_user():\n    User().save()\n")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "client.js").write_text(
        "export class Api extends Base {\n  get(url) { return fetch(url); }\n}\n"
        "function helper() { return db.execute('y'); }\n")
    (tmp_path / "notes.txt").write_text("def save(): fake, not code\n")
    return Harness(tmp_path)


def test_find_functions_by_glob_across_languages(project: Harness) -> None:
    out = project.ok("ast_search", {"find": "function", "name": "test_*"})
    assert out == "app/models.py:10: def test_user():"
    both = project.ok("ast_search", {"find": "call", "name": "execute"}).splitlines()
    assert both == ["app/models.py:7: db.execute('x')",
                    "web/client.js:4: db.execute('y')"]


def test_derives_and_language_filter(project: Harness) -> None:
    out = project.ok("ast_search", {"find": "derives", "name": "Base"}).splitlines()
    assert out == ["app/models.py:5: class User(Base):", "web/client.js:1: export class Api extends Base {"] \
        or out == ["app/models.py:5: class User(Base):", "web/client.js:1: class Api extends Base {"]
    only_js = project.ok("ast_search", {"find": "derives", "name": "Base", "language": "javascript"})
    assert only_js.startswith("web/client.js:1:") and "models.py" not in only_js


def test_raw_query_and_limit(project: Harness) -> None:
    query = '((identifier) @name (#eq? @name "fetch"))'
    assert project.ok("ast_search", {"query": query, "language": "javascript"}) == \
        "web/client.js:2: fetch"
    limited = project.ok("ast_search", {"find": "function", "limit": 1}).splitlines()
    assert len(limited) == 2 and limited[1].startswith("... 3 more matches")


def test_no_match_is_not_an_error(project: Harness) -> None:
    assert project.ok("ast_search", {"find": "class", "name": "Nope*"}) == "no matches"


@pytest.mark.parametrize(("args", "message"), [
    ({"query": "(function_definition", "language": "python"}, "the query does not parse for python"),
    ({"query": "(no_such_node) @x", "language": "python"}, "the query does not parse for python"),
    ({"query": "(identifier) @x"}, "a raw `query` needs `language`"),
    ({"find": "class", "query": "(identifier) @x", "language": "python"}, "give either"),
    ({}, "give either"),
    ({"find": "class", "language": "cobol"}, "unknown language 'cobol'"),
    ({"find": "class", "path": "missing"}, "no such file or folder"),
    ({"find": "class", "path": "../"}, "access denied"),
])
def test_bad_requests_are_one_line_errors(project: Harness, args: dict, message: str) -> None:
    err = project.err("ast_search", args)
    assert message in err and "\n" not in err and "Traceback" not in err


def test_bad_enum_is_rejected_by_the_schema(project: Harness) -> None:
    assert "find" in project.err("ast_search", {"find": "module"})


def test_huge_and_broken_files_do_not_stop_the_search(project: Harness) -> None:
    (project.root / "big.py").write_text("x = 1\n" * 200_000)  # over the size cap: skipped
    (project.root / "broken.py").write_text("def ok():\n    pass\ndef (((\n")
    out = project.ok("ast_search", {"find": "function", "name": "ok"})
    assert out.startswith("broken.py:1: def ok():")


def test_through_the_real_cli(project: Harness) -> None:
    aiagent = Path(sys.executable).parent / "aiagent"
    done = subprocess.run(
        [str(aiagent), "tools", "run", "ast_search", "--args",
         json.dumps({"find": "class", "name": "User"}), "--cwd", str(project.root)],
        capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "app/models.py:5: class User(Base):\n"), done.stderr
