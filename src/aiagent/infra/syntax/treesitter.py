"""Tree-sitter grammars from offline wheels, loaded lazily and cached per process."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

# language -> (module, function returning the grammar pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "swift": ("tree_sitter_swift", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
}


class GrammarUnavailable(Exception):
    pass


@cache
def get_language(name: str) -> Any:
    import tree_sitter

    spec = GRAMMARS.get(name)
    if spec is None:
        raise GrammarUnavailable(name)
    try:
        module = importlib.import_module(spec[0])
    except ImportError:
        raise GrammarUnavailable(name) from None
    return tree_sitter.Language(getattr(module, spec[1])())


@cache
def get_parser(name: str) -> Any:
    import tree_sitter

    return tree_sitter.Parser(get_language(name))


def available(name: str) -> bool:
    try:
        get_language(name)
    except GrammarUnavailable:
        return False
    return True


def parse(name: str, data: bytes) -> Any:
    return get_parser(name).parse(data)
