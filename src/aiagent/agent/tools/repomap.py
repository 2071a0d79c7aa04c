"""The repository map: the definitions that matter most, fitted to a token budget.

Definitions (functions, classes) and references (calls, base classes) come from the same
tree-sitter shortcut queries as ``ast_search``. Files are ranked by PageRank over the
reference graph (file A calls a name file B defines: an edge A -> B), personalised to the
files in focus (those the conversation names); each definition scores by the rank that
flows to it through its name. The best definitions, grouped by file, are kept while the map
fits the budget (about four characters a token).

Per-file tags are cached by content hash in ``$XDG_CACHE_HOME/aiagent/repomap/``: a warm
map reads only what changed. The map reaches the model as a system-prompt fragment (see
:class:`RepoMapPrompt`) and as the ``repo_map`` tool.

The walk and the parsing are bounded (``[tools.repo_map] max_files`` files walked and
``max_seconds`` seconds, 20,000 and 2 s by default), so a first answer in a huge folder
that is not a repository (``/usr``) stays quick; a map cut short says so to the model and
once on stderr, and keeps the cache of the files it did not reach. A cancelled run stops
the walk through :attr:`RepoMapPrompt.stop`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from time import monotonic
from typing import Any

from aiagent.agent.tools.ast import compiled, node_text_line, searchable_language, shortcuts
from aiagent.agent.tools.tooldef import BuiltinTool, in_thread, int_arg, schema, tool_settings
from aiagent.agent.tools.walk import Walk, WalkLimits
from aiagent.contracts.prompt import PromptFragment
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError
from aiagent.infra.config.paths import cache_dir
from aiagent.infra.syntax.treesitter import get_language, parse

CACHE_VERSION = 1
CHARS_PER_TOKEN = 4
MAX_FILES = 20_000  # files walked at most (default of [tools.repo_map] max_files)
MAX_SECONDS = 2.0  # walk and parse at most this long (default of max_seconds)
DAMPING = 0.85
GENERIC_NAME_FILES = 20
DEF_KINDS = ("class", "function")
REF_KINDS = ("call", "derives")


@dataclass(slots=True)
class Tags:
    defs: list[tuple[str, int, str]] = field(default_factory=list)  # (name, line, first line)
    refs: list[str] = field(default_factory=list)


def file_tags(data: bytes, language: str) -> Tags:
    """The definitions and referenced names of one file (one query pass over its tree)."""
    import tree_sitter


    joined = joined_query(language)
    if joined is None:
        return Tags()
    query, kinds = joined
    tags = Tags()
    for index, captures in tree_sitter.QueryCursor(query).matches(parse(language, data).root_node):
        names = captures.get("name") or []
        if not names:
            continue
        name = (names[0].text or b"").decode("utf-8", "replace")  # None only without the source
        if kinds[index] in DEF_KINDS:
            nodes = captures.get("node") or names
            node = min(nodes, key=lambda n: n.start_byte)
            tags.defs.append((name, node.start_point[0] + 1, node_text_line(node)))
        else:
            tags.refs.append(name)
    tags.defs.sort(key=lambda d: d[1])
    return tags


@cache
def joined_query(language: str) -> tuple[Any, list[str]] | None:
    """All definition and reference shortcuts of ``language`` as one query, and the kind of
    each of its patterns."""
    import tree_sitter


    queries = shortcuts().get(language, {})
    kinds: list[str] = []
    parts: list[str] = []
    for kind in (*DEF_KINDS, *REF_KINDS):
        if kind in queries:
            kinds += [kind] * compiled(language, queries[kind]).pattern_count
            parts.append(queries[kind])
    if not parts:
        return None
    return tree_sitter.Query(get_language(language), "\n".join(parts)), kinds


class TagCache:
    """Tags per repository-relative path, keyed by size+mtime and then by content hash."""

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False
        if file is not None:
            self._load(file)

    def _load(self, file: Path) -> None:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # a missing or damaged cache is rebuilt
        if isinstance(data, dict) and data.get("version") == CACHE_VERSION \
                and isinstance(data.get("files"), dict):
            self.entries = data["files"]

    def tags(self, rel: str, path: Path, language: str) -> Tags | None:
        try:
            st = path.stat()
        except OSError:
            return None
        if st.st_size > 1_000_000:
            return None
        stamp = [st.st_size, st.st_mtime_ns]
        entry = self.entries.get(rel)
        if entry is not None and entry.get("stamp") == stamp:
            return _from_entry(entry)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        digest = hashlib.sha1(data, usedforsecurity=False).hexdigest()
        if entry is not None and entry.get("sha") == digest:
            entry["stamp"] = stamp
            self.dirty = True
            return _from_entry(entry)
        tags = file_tags(data, language)
        self.entries[rel] = {"stamp": stamp, "sha": digest,
                             "defs": [list(d) for d in tags.defs], "refs": tags.refs}
        self.dirty = True
        return tags

    def save(self, present: Iterable[str], *, prune: bool = True) -> None:
        """Write the cache; with ``prune``, only the entries of ``present`` files stay (a
        partial walk does not prune: the files it did not reach are still there)."""
        if self.file is None or not self.dirty:
            return
        keep = set(present)
        files = {rel: e for rel, e in self.entries.items() if rel in keep or not prune}
        self.file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.file.with_name(f".{self.file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"version": CACHE_VERSION, "files": files}), encoding="utf-8")
        os.replace(tmp, self.file)


def _from_entry(entry: dict[str, Any]) -> Tags:
    defs = [(str(d[0]), int(d[1]), str(d[2])) for d in entry.get("defs", [])]
    return Tags(defs, [str(r) for r in entry.get("refs", [])])


def cache_file(root: Path, env: Mapping[str, str] | None = None) -> Path:

    key = hashlib.sha1(str(root.resolve()).encode(), usedforsecurity=False).hexdigest()[:16]
    return cache_dir(env) / "repomap" / f"{key}.json"


def collect(root: Path, cache: TagCache) -> dict[str, Tags]:
    """Tags of every parsable file under ``root`` (ignore files honoured), up to
    :data:`MAX_FILES` files walked."""
    return collect_bounded(root, cache, WalkLimits(max_files=MAX_FILES))[0]


def collect_bounded(root: Path, cache: TagCache, limits: WalkLimits) -> tuple[dict[str, Tags], str]:
    """Tags of the parsable files under ``root`` within ``limits`` (the time bound covers
    the walk and the parsing), and why the walk stopped early ("" when it saw everything)."""

    walk = Walk(root, limits=limits)
    deadline = monotonic() + limits.max_seconds if limits.max_seconds else 0.0
    found: dict[str, Tags] = {}
    for path in walk:
        language = searchable_language(path)
        if not language:
            continue
        rel = path.relative_to(root).as_posix()
        tags = cache.tags(rel, path, language)
        if tags is not None:
            found[rel] = tags
        if deadline and monotonic() >= deadline:
            walk.stopped = "time"
            break
    why = walk.why()
    cache.save(found, prune=not why)
    return found, why


def partial_note(why: str) -> str:
    """What the model and the user are told about a map cut short."""
    return (f"This map is partial: {why} (raise [tools.repo_map] max_files or max_seconds "
            "for a fuller map).")


def pagerank(edges: dict[str, dict[str, float]], nodes: list[str],
             focus: set[str], iterations: int = 40) -> dict[str, float]:
    """Personalised PageRank by power iteration (dangling rank returns to the focus)."""
    if not nodes:
        return {}
    index = {n: i for i, n in enumerate(nodes)}
    weights = [1.0 if n in focus else 0.0 for n in nodes]
    if not any(weights):
        weights = [1.0] * len(nodes)
    total = sum(weights)
    personal = [w / total for w in weights]
    links: list[tuple[int, list[tuple[int, float]]]] = []
    for src, targets in edges.items():
        out = sum(targets.values())
        if out > 0 and src in index:
            links.append((index[src], [(index[d], w / out) for d, w in targets.items() if d in index]))
    linked = {i for i, _ in links}
    dangling_nodes = [i for i in range(len(nodes)) if i not in linked]
    rank = list(personal)
    for _ in range(iterations):
        dangling = sum(rank[i] for i in dangling_nodes)
        base = 1 - DAMPING + DAMPING * dangling
        nxt = [base * p for p in personal]
        for i, shares in links:
            share = DAMPING * rank[i]
            for dst, w in shares:
                nxt[dst] += share * w
        delta = sum(abs(a - b) for a, b in zip(nxt, rank, strict=True))
        rank = nxt
        if delta < 1e-5:
            break
    return {n: rank[i] for n, i in index.items()}


@cache
def name_weight(name: str, defined_in: int) -> float:
    """How much a reference by ``name`` says: generic names (defined in many files, private,
    very short) say little; long specific names say more."""
    weight = 1.0
    if defined_in > 5:
        weight *= 0.1
    if name.startswith("_"):
        weight *= 0.1
    specific = "_" in name.strip("_") or (name[:1].islower() and any(c.isupper() for c in name)) \
        or (name[:1].isupper() and any(c.islower() for c in name))
    if specific and len(name) >= 8:
        weight *= 10
    return weight


def rank_definitions(files: dict[str, Tags], focus: set[str]) -> list[tuple[float, str, int, str]]:
    """(score, path, line, first line) of every definition, best first."""
    definers: dict[str, set[str]] = defaultdict(set)
    for rel, tags in files.items():
        for name, _, _ in tags.defs:
            definers[name].add(rel)
    edges: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    by_name: dict[str, dict[tuple[str, str], float]] = defaultdict(lambda: defaultdict(float))
    for rel, tags in files.items():
        for name in set(tags.refs):
            if len(definers.get(name, ())) > GENERIC_NAME_FILES or name.startswith("__"):
                continue  # defined nearly everywhere (get, run, __init__): says nothing
            targets = definers[name] - {rel}
            for dst in targets:
                weight = name_weight(name, len(definers[name])) / len(targets)
                edges[rel][dst] += weight
                by_name[rel][(dst, name)] += weight
    rank = pagerank(edges, sorted(files), focus)
    score: dict[tuple[str, str], float] = defaultdict(float)
    for src, flows in by_name.items():
        out = sum(edges[src].values()) or 1.0
        for key, weight in flows.items():
            score[key] += rank[src] * weight / out
    ranked = []
    for rel, tags in files.items():
        for name, line, text in tags.defs:
            ranked.append((score.get((rel, name), 0.0) + rank.get(rel, 0.0) * 1e-3, rel, line, text))
    ranked.sort(key=lambda r: (-r[0], r[1], r[2]))
    return ranked


def render(ranked: list[tuple[float, str, int, str]], count: int) -> str:
    chosen = ranked[:count]
    order: dict[str, float] = {}
    for sc, rel, _, _ in chosen:
        order.setdefault(rel, sc)
    lines_by_file: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for _, rel, line, text in chosen:
        lines_by_file[rel].append((line, text))
    out: list[str] = []
    for rel in sorted(order, key=lambda r: (-order[r], r)):
        out.append(f"{rel}:")
        out += [f"  {line}: {text}" for line, text in sorted(lines_by_file[rel])]
    return "\n".join(out)


def fit(ranked: list[tuple[float, str, int, str]], tokens: int) -> str:
    """The largest prefix of ``ranked`` whose rendering fits ``tokens`` (binary search)."""
    budget = tokens * CHARS_PER_TOKEN
    low, high, best = 0, len(ranked), ""
    while low <= high:
        mid = (low + high) // 2
        text = render(ranked, mid)
        if len(text) <= budget:
            best, low = text, mid + 1
        else:
            high = mid - 1
    return best


def build_map(root: Path, *, focus: Iterable[str] = (), tokens: int = 1024,
              cache: TagCache | None = None) -> str:
    """The repository map of ``root`` in at most about ``tokens`` tokens."""
    root = root.resolve()
    files = collect(root, cache if cache is not None else TagCache(None))
    wanted = {_relative(root, f) for f in focus}
    return fit(rank_definitions(files, wanted), tokens)


def _relative(root: Path, name: str) -> str:
    path = Path(name)
    if path.is_absolute():
        try:
            return path.resolve().relative_to(root).as_posix()
        except ValueError:
            return name
    return path.as_posix().removeprefix("./")


class RepoMapTool(BuiltinTool):
    name = "repo_map"
    description = (
        "A map of the repository: its most used classes and functions (path, line, first "
        "line), ranked by how much the rest of the code refers to them. `focus` ranks the "
        "code around the given files higher; `tokens` bounds the size (default 1024)."
    )
    effect = ToolEffect.of("read")
    input_schema = schema({
        "focus": {"type": "array", "items": {"type": "string"}, "maxItems": 50,
                  "description": "Files to centre the map on."},
        "tokens": {"type": "integer", "minimum": 64, "maximum": 16384,
                   "description": "Size of the map in tokens (default 1024)."},
    })

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        root = ctx.workspace.resolve()
        tokens = int_arg(args, "tokens", 1024)
        focus = [str(f) for f in args.get("focus") or []]
        table = tool_settings(ctx, "repo_map")
        stop = threading.Event()
        limits = WalkLimits(int(table.get("max_files", MAX_FILES)),
                            float(table.get("max_seconds", MAX_SECONDS)), stop)

        def build() -> tuple[str, str]:
            files, why = collect_bounded(root, TagCache(cache_file(root)), limits)
            wanted = {_relative(root, f) for f in focus}
            return fit(rank_definitions(files, wanted), tokens), why

        try:
            text, why = await in_thread(build)
        finally:
            stop.set()  # a cancelled call stops its walk too
        if not text:
            raise ToolError("no source files this map can read (Python, JavaScript, TypeScript, "
                            "Go, Java, Ruby, PHP, C#, Kotlin, Swift)" + (f"; {partial_note(why)}" if why else ""))
        return f"{text}\n\n{partial_note(why)}" if why else text


class RepoMapPrompt:
    """The repository map as a system-prompt fragment, re-centred on the files the
    conversation names. ``mode``: ``auto`` (on when the repository has at least
    ``min_files`` source files), ``on`` or ``off``."""

    TITLE = "Repository map"

    def __init__(self, root: Path, *, mode: str = "auto", tokens: int = 1024,
                 min_files: int = 50, env: Mapping[str, str] | None = None,
                 max_files: int = MAX_FILES, max_seconds: float = MAX_SECONDS) -> None:
        self.root = root.resolve()
        self.mode, self.tokens, self.min_files = mode, tokens, min_files
        self.env = env
        self.max_files, self.max_seconds = max_files, max_seconds
        #: set (from any thread) to stop a walk under way: the run was cancelled
        self.stop = threading.Event()
        #: why the map is partial ("" when it covers the whole folder)
        self.partial = ""
        self.focus: set[str] = set()
        self.fragments: list[Any] = []
        self._files: dict[str, Tags] | None = None

    async def refresh_async(self, text: str) -> bool:
        """:meth:`refresh` in a worker thread; cancelling the caller stops the walk."""
        import asyncio

        stop = self.stop = threading.Event()  # a walk abandoned earlier keeps its own
        try:
            return await asyncio.to_thread(self.refresh, text)
        except asyncio.CancelledError:
            stop.set()
            raise

    def refresh(self, text: str) -> bool:
        """Rebuild the fragment for the files ``text`` names; True when it changed."""

        if self.mode == "off":
            return False
        files = self._load()
        if self.mode == "auto" and len(files) < self.min_files:
            return False
        named = mentioned(text, files)
        if self.fragments and named <= self.focus:
            return False
        self.focus |= named
        body = fit(rank_definitions(files, self.focus), self.tokens)
        if not body:
            return False
        intro = ("The most used classes and functions of this repository (path, line, first "
                 "line), ranked by how much the rest of the code refers to them. Read the files "
                 "for details; the repo_map tool gives a map centred on other files.")
        if self.partial:
            intro += " " + partial_note(self.partial)
        fragment = PromptFragment(self.TITLE, f"{intro}\n\n{body}")
        changed = self.fragments != [fragment]
        self.fragments = [fragment]
        return changed

    def _load(self) -> dict[str, Tags]:
        if self._files is not None:
            return self._files
        stop = self.stop
        limits = WalkLimits(self.max_files, self.max_seconds, stop)
        files, why = collect_bounded(self.root, TagCache(cache_file(self.root, self.env)), limits)
        if stop.is_set():
            return files  # cut short by a cancelled run: built again next time
        self._files, self.partial = files, why
        if why:
            logging.getLogger("aiagent.agent.tools").warning(
                "aiagent: note: the repository map of %s is partial: %s (see [tools.repo_map] "
                "max_files and max_seconds)", self.root, why)
        return files


def mentioned(text: str, files: Mapping[str, Tags]) -> set[str]:
    """The repository files ``text`` names, by relative path or by a unique base name."""
    import re

    words = set(re.findall(r"[\w./-]+\.\w+", text))
    by_name: dict[str, list[str]] = defaultdict(list)
    for rel in files:
        by_name[rel.rsplit("/", 1)[-1]].append(rel)
    found = {w.removeprefix("./") for w in words if w.removeprefix("./") in files}
    found |= {by_name[w][0] for w in words if len(by_name.get(w, ())) == 1}
    return found
