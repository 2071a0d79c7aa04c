"""No class in ``src/`` has more than 25 methods: a class that grows past that holds more
than one part's state, and the part goes into its own class (issue 26, "central objects
stay central"). Every ``def`` and ``async def`` in the class body counts, properties,
static and class methods and dunders included; nested classes are counted on their own.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "aiagent"
MAX_METHODS = 25


def method_count(node: ast.ClassDef) -> int:
    return sum(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for item in node.body)


def big_classes(source: str, filename: str = "<source>") -> list[tuple[str, int, int]]:
    """(class name, line, methods) of each class in ``source`` over :data:`MAX_METHODS`."""
    tree = ast.parse(source, filename)
    return [(node.name, node.lineno, method_count(node)) for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and method_count(node) > MAX_METHODS]


def test_no_class_has_more_than_25_methods() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for name, line, count in big_classes(path.read_text(encoding="utf-8"), str(path)):
            found.append(f"{path.relative_to(SRC)}:{line} {name}: {count} methods")
    assert not found, f"classes over {MAX_METHODS} methods (split a part out):\n" + "\n".join(found)


def test_the_count_sees_every_kind_of_method() -> None:
    """The check can fail: 26 methods of every kind (property, async, static, dunder) are
    found, 25 are not, and a nested class is counted apart from its outer class."""
    kinds = ["    @property\n    def p{i}(self): ...\n", "    async def a{i}(self): ...\n",
             "    @staticmethod\n    def s{i}(): ...\n", "    def __x{i}__(self): ...\n"]
    body = "".join(kinds[i % 4].format(i=i) for i in range(26))
    assert big_classes(f"class Big:\n{body}") == [("Big", 1, 26)]
    trimmed = "".join(kinds[i % 4].format(i=i) for i in range(25))
    assert big_classes(f"class Fine:\n{trimmed}") == []
    nested = f"class Outer:\n    def one(self): ...\n    class Inner:\n{textwrap.indent(body, '    ')}"
    assert big_classes(nested) == [("Inner", 3, 26)]

