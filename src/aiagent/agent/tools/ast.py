"""``ast_search``: structural code search over tree-sitter trees, with file:line results.

Two ways to ask: a structural shortcut a model can write without knowing any grammar
(``find`` = ``function`` | ``class`` | ``call`` | ``derives`` with a ``name`` glob), or a raw
tree-sitter ``query`` for one ``language``. The shortcut queries are data
(``ast_shortcuts.toml``); the repository map reads its definitions and references from the
same file. Every language of :data:`aiagent.infra.syntax.treesitter.GRAMMARS` is searched.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.agent.tools.tooldef import BuiltinTool, in_thread, int_arg, schema, string
from aiagent.agent.tools.workspace import display_path, resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError
from aiagent.infra.syntax.languages import classify
from aiagent.infra.syntax.treesitter import GRAMMARS, available, get_language, parse

KINDS = ("function", "class", "call", "derives")
MAX_FILE_BYTES = 1_000_000
MAX_RESULTS = 500


class QueryProblem(ToolError):
    """A query that does not compile for its language (one line, from tree-sitter)."""


@dataclass(frozen=True, slots=True)
class Match:
    path: Path
    line: int  # 1-based
    kind: str
    name: str
    text: str  # the first line of the matched construct


@cache
def shortcuts() -> dict[str, dict[str, str]]:
    """language -> kind -> query source (package data)."""
    data = resources.files("aiagent.agent.tools").joinpath("ast_shortcuts.toml").read_bytes()
    return {lang: dict(kinds) for lang, kinds in tomllib.loads(data.decode()).items()}


@cache
def compiled(language: str, source: str) -> Any:
    import tree_sitter


    try:
        return tree_sitter.Query(get_language(language), source)
    except (tree_sitter.QueryError, ValueError) as exc:
        detail = " ".join(str(exc).split())[:200]
        raise QueryProblem(f"the query does not parse for {language}: {detail}") from None


def searchable_language(path: Path) -> str:
    """The grammar for ``path`` ('' when none of ours parses it)."""

    language = classify(path.name)
    return language if language in GRAMMARS and available(language) else ""


def source_files(root: Path, language: str | None = None) -> Iterator[tuple[Path, str]]:
    """Files under ``root`` (ignore files honoured) that a grammar parses, with the grammar."""
    from aiagent.agent.tools.walk import walk_files

    candidates = [root] if root.is_file() else sorted(walk_files(root))
    for path in candidates:
        lang = searchable_language(path)
        if lang and (language is None or lang == language):
            yield path, lang


def parse_file(path: Path, language: str) -> Any | None:

    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        return parse(language, path.read_bytes())
    except OSError:
        return None


def node_text_line(node: Any) -> str:
    first: str = node.text.decode("utf-8", "replace").split("\n", 1)[0].strip()
    return first[:200]


def matches_in(tree: Any, query: Any, kind: str, pattern: str | None) -> Iterator[tuple[int, str, str]]:
    """(line, name, first line) for each match of ``query`` whose ``@name`` fits ``pattern``."""
    import tree_sitter

    for _index, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
        names = captures.get("name") or []
        name = (names[0].text or b"").decode("utf-8", "replace") if names else ""
        if pattern and not fnmatch.fnmatchcase(name, pattern):
            continue
        nodes = captures.get("node") or [n for group in captures.values() for n in group]
        if not nodes:
            continue
        node = min(nodes, key=lambda n: n.start_byte)
        yield node.start_point[0] + 1, name, node_text_line(node)


def search(root: Path, *, find: str | None, name: str | None, query: str | None,
           language: str | None, limit: int) -> tuple[list[Match], int]:
    """The matches (at most ``limit``) and how many there were in all."""
    found: list[Match] = []
    total = 0
    for path, lang in source_files(root, language):
        source = query if query is not None else shortcuts().get(lang, {}).get(find or "")
        if not source:
            continue
        compiled_query = compiled(lang, source)
        tree = parse_file(path, lang)
        if tree is None:
            continue
        for line, found_name, text in matches_in(tree, compiled_query, find or "match", name):
            total += 1
            if len(found) < limit:
                found.append(Match(path, line, find or "match", found_name, text))
    return found, total


class AstSearchTool(BuiltinTool):
    name = "ast_search"
    description = (
        "Structural code search (tree-sitter). Either `find` one of function|class|call|derives "
        "with an optional `name` glob (e.g. find=call name=execute, find=derives name=Exception, "
        "find=function name='test_*'), or a raw tree-sitter `query` with `language`. "
        "Returns path:line results. Languages: Python, JavaScript, TypeScript, Go, Java, Ruby, "
        "PHP, C#, Kotlin, Swift."
    )
    effect = ToolEffect.of("read", path_args=("path",))
    input_schema = schema({
        "find": {"type": "string", "enum": list(KINDS), "description": "A structural shortcut."},
        "name": string("A glob the name must match (`*`, `?`); for `derives`, the base class."),
        "query": string("A tree-sitter query (S-expression); needs `language`."),
        "language": string("Only this language (python, javascript, typescript, go, java, ...)."),
        "path": string("File or folder to search (default: the workspace)."),
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS,
                  "description": "Most results shown (default 50)."},
    })

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        find, query, language = args.get("find"), args.get("query"), args.get("language")
        if (find is None) == (query is None):
            raise ToolError("give either `find` (function, class, call, derives) or `query`")
        if query is not None and not language:
            raise ToolError("a raw `query` needs `language` (its grammar)")

        if language and language not in GRAMMARS:
            raise ToolError(f"unknown language {language!r}; one of: {', '.join(sorted(GRAMMARS))}")
        if query is not None:
            compiled(language, query)  # a bad query is one clear line, before any walking
        root = resolve_path(ctx, args.get("path") or ".")
        if not root.exists():
            raise ToolError(f"no such file or folder: {args.get('path')}")
        limit = int_arg(args, "limit", 50)
        found, total = await in_thread(
            lambda: search(root, find=find, name=args.get("name"), query=query,
                           language=language, limit=limit))
        return render(ctx, found, total)


def render(ctx: ToolContext, found: list[Match], total: int) -> str:
    if not found:
        return "no matches"
    lines = [f"{display_path(ctx, m.path)}:{m.line}: {m.text}" for m in found]
    if total > len(found):
        lines.append(f"... {total - len(found)} more matches (narrow `path` or `name`, or raise `limit`)")
    return "\n".join(lines)
