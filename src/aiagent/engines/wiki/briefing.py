"""Bounded, structured briefings for the model passes, built from the code model.

A briefing lists what a call needs — the module's files, its public symbols with signatures
and docstrings (most called first), snippets of its most central symbols, the summaries of
the modules it depends on — and stops at ``[briefing] max_chars`` (``data/analysis.toml``)
whatever the project's size: a 50k-line project never overflows the model's context.
Everything in a briefing is project text: the model is told it is material, not orders.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from functools import cache
from importlib import resources
from typing import Any

from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.cluster import Module
from aiagent.engines.wiki.model import Symbol

DATA = "data"
LINE_CHARS = 300  # one listed item


@cache
def config() -> dict[str, Any]:
    text = resources.files("aiagent.engines.wiki").joinpath(f"{DATA}/analysis.toml").read_text("utf-8")
    return tomllib.loads(text)


class Budget:
    """Lines added while they fit in ``limit`` characters; the rest is counted, not kept."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size, self.lines, self.left_out = limit, 0, list[str](), 0

    def add(self, line: str) -> bool:
        line = line if len(line) <= LINE_CHARS * 8 else line[: LINE_CHARS * 8] + " …"
        if self.size + len(line) + 1 > self.limit:
            self.left_out += 1
            return False
        self.lines.append(line)
        self.size += len(line) + 1
        return True

    def text(self) -> str:
        note = f"\n({self.left_out} more items left out to keep the briefing short)" if self.left_out else ""
        body = "\n".join(self.lines)
        return (body + note)[: self.limit]


def _one(text: str, limit: int = LINE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def symbol_calls(ctx: Context) -> Counter[str]:
    """Call sites per symbol (``rel::qualname``): how central each one is."""
    return Counter(e.callee for e in ctx.model.calls)


def module_centrality(ctx: Context) -> list[Module]:
    """Modules, most central first: imported the most, then called the most."""
    calls = symbol_calls(ctx)
    def score(m: Module) -> tuple[int, int, str]:
        called = sum(n for key, n in calls.items() if key.split("::", 1)[0] in m.files)
        return (-sum(m.deps_in.values()), -called, m.id)
    return sorted((m for m in ctx.modules if not m.is_test), key=score)


def ranked_symbols(ctx: Context, m: Module) -> list[Symbol]:
    calls = symbol_calls(ctx)
    syms = [s for rel in m.files for s in ctx.model.files[rel].symbols if s.public]
    return sorted(syms, key=lambda s: (-calls.get(f"{s.rel}::{s.qualname}", 0), s.rel, s.line))


def module_briefing(ctx: Context, m: Module, dep_summaries: dict[str, str]) -> str:
    cfg = config()["briefing"]
    budget = Budget(int(cfg["max_chars"]))
    budget.add(f"Module: {m.title} (id {m.id}){' — tests' if m.is_test else ''}")
    budget.add("Files: " + ", ".join(f"{rel} ({ctx.model.files[rel].lines} lines)" for rel in m.files[:40]))
    for rel in m.files:
        if ctx.model.files[rel].doc:
            budget.add(f"Docstring of {rel}: {_one(ctx.model.files[rel].doc)}")
    by_id = {x.id: x for x in ctx.modules}
    deps = sorted(m.deps_out.items(), key=lambda kv: (-kv[1], kv[0]))[: int(cfg["max_dep_summaries"])]
    if deps:
        budget.add("\nDepends on:")
        for dep, n in deps:
            budget.add(f"- {by_id[dep].title} ({n} imports): {_one(dep_summaries.get(dep, '(no summary)'))}")
    if m.deps_in:
        budget.add("Used by: " + ", ".join(by_id[k].title for k in sorted(m.deps_in)))
    _symbols(ctx, m, budget, int(cfg["max_symbols"]))
    _snippets(ctx, ranked_symbols(ctx, m)[: int(cfg["max_snippets"])], budget, int(cfg["snippet_lines"]))
    return budget.text()


def _symbols(ctx: Context, m: Module, budget: Budget, limit: int) -> None:
    calls = symbol_calls(ctx)
    ranked = ranked_symbols(ctx, m)
    budget.add("\nPublic symbols (kind, name, signature, file:line, call sites, docstring):")
    for s in ranked[:limit]:
        n = calls.get(f"{s.rel}::{s.qualname}", 0)
        budget.add(f"- {s.kind} {s.qualname} `{_one(s.signature, 200)}` {s.rel}:{s.line} "
                   f"calls={n}{' — ' + _one(s.doc, 200) if s.doc else ''}")
    if len(ranked) > limit:
        budget.add(f"({len(ranked) - limit} more public symbols)")


def _snippets(ctx: Context, syms: list[Symbol], budget: Budget, lines: int) -> None:
    cache: dict[str, list[str]] = {}
    for s in syms:
        if s.rel not in cache:
            try:
                cache[s.rel] = (ctx.model.root / s.rel).read_text("utf-8", errors="replace").splitlines()
            except OSError:
                cache[s.rel] = []
        end = min(s.end_line, s.line + lines - 1)
        body = "\n".join(line[:200] for line in cache[s.rel][s.line - 1: end])
        if body:
            budget.add(f"\nSnippet {s.rel}:{s.line}-{end} ({s.qualname}):\n{body}")


def synthesis_briefing(ctx: Context, summaries: dict[str, str]) -> str:
    cfg = config()["briefing"]
    budget = Budget(int(cfg["max_chars"]))
    model = ctx.model
    budget.add(f"Project: {ctx.model.root.name}: {len(model.files)} source files, {model.total_lines} lines, "
               f"{len(ctx.modules)} modules.")
    if ctx.steering.audience:
        budget.add(f"Audience: {_one(ctx.steering.audience)}")
    for note in ctx.steering.notes:
        budget.add(f"Note to respect: {_one(note)}")
    budget.add("\nEntry points:")
    for where, what in model.entry_points[:20]:
        budget.add(f"- {where}: {_one(what)}")
    budget.add("\nModules, most central first (id, imports in/out, summary):")
    for m in module_centrality(ctx)[: int(cfg["max_modules"])]:
        budget.add(f"- {m.title} [in {sum(m.deps_in.values())}, out {sum(m.deps_out.values())}]: "
                   f"{_one(summaries.get(m.id, '(no summary)'), 600)}")
    budget.add("\nImports between modules (from -> to: count):")
    for m in ctx.modules:
        for dst, n in sorted(m.deps_out.items()):
            budget.add(f"- {m.id} -> {dst}: {n}")
    _most_called(ctx, budget)
    return budget.text()


def _most_called(ctx: Context, budget: Budget) -> None:
    index = {f"{s.rel}::{s.qualname}": s for s in ctx.model.symbols()}
    budget.add("\nMost called symbols:")
    for key, n in symbol_calls(ctx).most_common(30):
        s = index.get(key)
        if s is not None:
            budget.add(f"- {s.qualname} ({s.rel}:{s.line}) calls={n} `{_one(s.signature, 160)}`")


def deep_briefing(ctx: Context, m: Module, summary: str) -> str:
    cfg = config()["briefing"]
    budget = Budget(int(cfg["max_chars"]))
    budget.add(f"Module: {m.title} (id {m.id})")
    budget.add(f"Summary so far: {_one(summary, 1500)}")
    _symbols(ctx, m, budget, int(cfg["max_symbols"]))
    _snippets(ctx, ranked_symbols(ctx, m)[: int(cfg["max_snippets"]) * 2], budget, int(cfg["snippet_lines"]) * 2)
    return budget.text()


def page_briefing(ctx: Context, title: str, instructions: str, summaries: dict[str, str]) -> str:
    """A steering-file page: its title and instructions (project text, capped), the audience
    and notes, the modules most central first with their summaries, the most called symbols."""
    cfg = config()["briefing"]
    budget = Budget(int(cfg["max_chars"]))
    budget.add(f"Page title: {_one(title, 200)}")
    budget.add(f"Instructions from the steering file: {_one(instructions, int(cfg['max_instructions']))}")
    if ctx.steering.audience:
        budget.add(f"Audience: {_one(ctx.steering.audience)}")
    for note in ctx.steering.notes:
        budget.add(f"Note to respect: {_one(note)}")
    budget.add(f"\nProject: {ctx.model.root.name}: {len(ctx.model.files)} source files, "
               f"{ctx.model.total_lines} lines, {len(ctx.modules)} modules.")
    budget.add("\nEntry points:")
    for where, what in ctx.model.entry_points[:20]:
        budget.add(f"- {where}: {_one(what)}")
    budget.add("\nModules, most central first (id, files, summary):")
    for m in module_centrality(ctx)[: int(cfg["max_modules"])]:
        budget.add(f"- {m.title} (id {m.id}, {len(m.files)} files): {_one(summaries.get(m.id, '(no summary)'), 600)}")
    _most_called(ctx, budget)
    return budget.text()


AUTH_WORDS = ("auth", "login", "logout", "session", "token", "jwt", "oauth", "password", "passwd",
              "credential", "secret", "permission", "role", "acl", "csrf", "apikey", "api_key", "sign")


def auth_briefing(ctx: Context, summaries: dict[str, str]) -> str:
    """The auth review's briefing: the engine's authentication and authorization findings,
    the files and public symbols whose names speak of auth, the summaries of their modules."""
    cfg = config()["briefing"]
    budget = Budget(int(cfg["max_chars"]))
    budget.add(f"Project: {ctx.model.root.name}: {len(ctx.model.files)} source files, {len(ctx.modules)} modules.")
    found = [f for f in ctx.audit.findings if f.category.value in ("authentication", "authorization")]
    budget.add(f"\nFindings of the offline engine about authentication or authorization ({len(found)}):")
    for f in found[:40]:
        budget.add(f"- {f.severity.value} {f.id} {f.cwe or ''}: {_one(f.title)} at "
                   f"{f.location.file}:{f.location.start_line}")
    owner = ctx.module_of()
    touched: dict[str, None] = {}
    budget.add("\nFiles and public symbols about authentication, sessions, tokens or permissions:")
    for rel, fm in sorted(ctx.model.files.items()):
        if fm.is_test:
            continue
        names = [s.qualname for s in fm.symbols if s.public and _auth_word(s.name)]
        if names or _auth_word(rel):
            touched[owner[rel].id] = None
            budget.add(f"- {rel}: {', '.join(names[:12]) or '(by its name)'}")
    budget.add("\nSummaries of the modules these are in:")
    for mid in list(touched)[: int(cfg["max_dep_summaries"])]:
        budget.add(f"- {mid}: {_one(summaries.get(mid, '(no summary)'), 600)}")
    return budget.text()


def _auth_word(name: str) -> bool:
    low = name.lower()
    return any(w in low for w in AUTH_WORDS)
