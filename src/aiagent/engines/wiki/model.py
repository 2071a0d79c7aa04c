"""Stage 2: a tree-sitter model of the code — files, symbols with signatures and docstrings,
imports (resolved to project files where possible), call edges, entry points, tests.

Each source file is parsed once. Python is read from its tree (signatures, docstrings,
relative imports); the other languages use the ``ast_search`` shortcut queries
(``tools/ast_shortcuts.toml``) for functions, classes and calls, and ``queries.toml`` for
imports. Resolution of imports to files lives in :mod:`aiagent.engines.wiki.resolve`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aiagent.engines.wiki.scan import Scan, ScannedFile


@dataclass(slots=True)
class Symbol:
    kind: str  # class | function | method
    name: str
    qualname: str  # Class.method for methods
    rel: str
    line: int  # 1-based
    end_line: int
    signature: str
    doc: str = ""  # the first paragraph of its docstring or leading comment
    public: bool = True


@dataclass(slots=True)
class FileModel:
    rel: str
    language: str
    is_test: bool
    lines: int
    doc: str = ""
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)  # as written
    resolved: set[str] = field(default_factory=set)  # project files imported
    calls: list[tuple[int, str]] = field(default_factory=list)  # (line, called name)
    entry: str = ""  # why this file is an entry point ("" if it is not)


@dataclass(slots=True)
class CallEdge:
    caller: str  # "rel::qualname" (or "rel" at module level)
    callee: str  # "rel::qualname"


@dataclass(slots=True)
class CodeModel:
    root: Path
    files: dict[str, FileModel]
    build: list[ScannedFile]
    config: list[ScannedFile]
    docs: list[ScannedFile]
    calls: list[CallEdge] = field(default_factory=list)
    entry_points: list[tuple[str, str]] = field(default_factory=list)  # (where, what)

    def symbols(self) -> list[Symbol]:
        return [s for f in self.files.values() for s in f.symbols]

    @property
    def total_lines(self) -> int:
        return sum(f.lines for f in self.files.values())


Progress = Callable[[int, int], None]


def build_model(scanned: Scan, progress: Progress | None = None) -> CodeModel:
    from aiagent.engines.wiki.entries import find_entry_points
    from aiagent.engines.wiki.extract import extract
    from aiagent.engines.wiki.resolve import resolve_imports

    sources = scanned.of_kind("source")
    files: dict[str, FileModel] = {}
    for index, item in enumerate(sources, 1):
        files[item.rel] = extract(item)
        if progress is not None:
            progress(index, len(sources))
    model = CodeModel(scanned.root, files, scanned.of_kind("build"), scanned.of_kind("config"),
                      scanned.of_kind("doc"))
    resolve_imports(model)
    model.calls = call_edges(model)
    model.entry_points = find_entry_points(model)
    return model


def call_edges(model: CodeModel) -> list[CallEdge]:
    """Calls whose target is resolvable: a name defined once in the calling file or in the
    files it imports."""
    by_file: dict[str, dict[str, list[Symbol]]] = {}
    for rel, fm in model.files.items():
        names: dict[str, list[Symbol]] = defaultdict(list)
        for sym in fm.symbols:
            if sym.kind != "method":
                names[sym.name].append(sym)
        by_file[rel] = names
    edges: list[CallEdge] = []
    seen: set[tuple[str, str]] = set()
    for rel, fm in model.files.items():
        scope = [rel, *sorted(fm.resolved)]
        for line, name in fm.calls:
            found = [s for r in scope for s in by_file.get(r, {}).get(name, [])]
            if len(found) != 1:
                continue
            key = (_enclosing(fm, line), f"{found[0].rel}::{found[0].qualname}")
            if key[0] != key[1] and key not in seen:
                seen.add(key)
                edges.append(CallEdge(*key))
    return edges


def _enclosing(fm: FileModel, line: int) -> str:
    inner = [s for s in fm.symbols if s.kind != "class" and s.line <= line <= s.end_line]
    if not inner:
        return fm.rel
    best = max(inner, key=lambda s: s.line)
    return f"{fm.rel}::{best.qualname}"
