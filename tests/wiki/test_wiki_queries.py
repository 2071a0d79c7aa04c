"""Every import query of the wiki's code model compiles for its grammar and finds the import
in a sample of its language (a query that does not compile stops a whole wiki run)."""

from __future__ import annotations

import pytest

from aiagent.engines.wiki.extract import _imports, import_queries
from aiagent.infra.syntax.treesitter import parse

SAMPLES = {
    "javascript": (b"import a from './a';\nconst b = require('./b');\nexport * from './c';\n", ["./a", "./b", "./c"]),
    "typescript": (b"import { a } from './a';\nexport { b } from './b';\n", ["./a", "./b"]),
    "tsx": (b"import React from 'react';\nexport const X = () => <div/>;\n", ["react"]),
    "go": (b'package main\nimport (\n\t"fmt"\n\t"example.com/x/y"\n)\n', ["fmt", "example.com/x/y"]),
    "java": (b"import a.b.C;\nclass D {}\n", ["a.b.C"]),
    "kotlin": (b"package p\nimport foo.bar.Baz\n", ["foo.bar.Baz"]),
    "csharp": (b"using System.Text;\nusing Foo;\n", ["System.Text", "Foo"]),
}


def test_every_language_with_a_query_has_a_sample() -> None:
    assert set(import_queries()) == set(SAMPLES)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_import_query_finds_the_imports(language: str) -> None:
    source, expected = SAMPLES[language]
    assert _imports(language, parse(language, source).root_node) == expected


def test_require_of_a_non_require_call_is_not_an_import() -> None:
    tree = parse("javascript", b"load('./not-an-import');\nrequire('./yes');\n")
    assert _imports("javascript", tree.root_node) == ["./yes"]
