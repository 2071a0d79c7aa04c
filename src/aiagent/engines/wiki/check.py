"""``aiagent wiki --check``: a quality report on the wiki just written, per page —

* public-symbol coverage: of each module's public symbols, how many its page lists;
* dead links: links between pages and to source files (the copies inside a site, or the
  project's files for plain Markdown) that lead nowhere, ``#L<line>`` past the file's end
  included; links to the web are not followed (no network);
* diagrams: every Mermaid block read back with the strict parser of
  :mod:`.modeldiagrams` and sized against :data:`~.diagrams.MAX_NODES` nodes and
  :data:`~.diagrams.MAX_EDGES` edges (DOT and D2 blocks are counted, not parsed);
* truth-check counts of the model passes of this run (unknown names, fixed, removed,
  diagrams kept and dropped), from the manifest.

The score is the mean of the three percentages (symbols listed, links that resolve,
diagrams that parse within the limits); the command exits 1 when it is under the minimum
(``--check-min``, or ``[wiki] check_min``, default :data:`DEFAULT_MIN`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.diagrams import MAX_EDGES, MAX_NODES
from aiagent.engines.wiki.modeldiagrams import DiagramError, parse
from aiagent.engines.wiki.pages import Page, code
from aiagent.engines.wiki.sourcelinks import SOURCE_DIR, copy_name

DEFAULT_MIN = 80.0
LINK = re.compile(r"(?<!\\)\]\(([^)\s]+)\)")
BLOCK = re.compile(r"^```(mermaid|dot|d2)\n(.*?)\n```", re.S | re.M)


@dataclass(slots=True)
class PageCheck:
    path: str
    links: int = 0
    dead_links: list[str] = field(default_factory=list)
    diagrams: int = 0
    diagram_problems: list[str] = field(default_factory=list)
    symbols: int = 0  # public symbols this page should list (module pages)
    symbols_listed: int = 0


@dataclass(slots=True)
class CheckReport:
    pages: list[PageCheck]
    truth: dict[str, Any] | None
    minimum: float

    def totals(self) -> dict[str, tuple[int, int]]:
        """Part -> (good, all)."""
        return {"symbols": (sum(p.symbols_listed for p in self.pages), sum(p.symbols for p in self.pages)),
                "links": (sum(p.links - len(p.dead_links) for p in self.pages), sum(p.links for p in self.pages)),
                "diagrams": (sum(p.diagrams - len(p.diagram_problems) for p in self.pages),
                             sum(p.diagrams for p in self.pages))}

    @property
    def score(self) -> float:
        parts = [100.0 * good / total if total else 100.0 for good, total in self.totals().values()]
        return round(sum(parts) / len(parts), 1)

    @property
    def passed(self) -> bool:
        return self.score >= self.minimum

    def as_dict(self) -> dict[str, Any]:
        totals = {k: {"good": g, "total": t, "percent": round(100.0 * g / t, 1) if t else 100.0}
                  for k, (g, t) in self.totals().items()}
        return {"score": self.score, "minimum": self.minimum, "passed": self.passed, **totals,
                "truth": self.truth, "pages": [asdict(p) for p in self.pages]}


def check_pages(ctx: Context, pages: list[Page], truth: dict[str, Any] | None, minimum: float) -> CheckReport:
    symbols = _module_symbols(ctx)
    resolver = _Resolver(ctx, {p.path for p in pages})
    out = []
    for page in pages:
        result = PageCheck(page.path)
        _links(resolver, page, result)
        _diagrams(page, result)
        if page.path in symbols:
            names = symbols[page.path]
            result.symbols = len(names)
            result.symbols_listed = sum(1 for n in names if code(n) in page.body)
        out.append(result)
    return CheckReport(out, truth, minimum)


def _module_symbols(ctx: Context) -> dict[str, list[str]]:
    return {f"modules/{m.id}.md": [s.qualname for rel in m.files for s in ctx.model.files[rel].symbols if s.public]
            for m in ctx.modules}


def _links(resolver: _Resolver, page: Page, result: PageCheck) -> None:
    for target in LINK.findall(_without_code(page.body)):
        web = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target) and not target.startswith("pathname:")
        if web or target.startswith(("#", "//")):
            continue  # the web, mail, an anchor on this page: not followed
        result.links += 1
        if not resolver.resolves(page.path, target):
            result.dead_links.append(target)


def _without_code(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


class _Resolver:
    """Where a link of a page leads, in the site being written (or, for plain Markdown, on disk)."""

    def __init__(self, ctx: Context, paths: set[str]) -> None:

        self.ctx, self.paths, self.fmt = ctx, paths, ctx.links.fmt
        self.copies = {f"{SOURCE_DIR}/{copy_name(rel)}": rel for rel in ctx.links.copied}
        if self.fmt == "hugo":
            from aiagent.engines.wiki.sites import hugo_url

            self.urls = {hugo_url(p): p for p in paths}

    def resolves(self, page: str, target: str) -> bool:
        path, _, anchor = target.partition("#")
        path = unquote(path)
        if path.startswith("pathname:///"):
            return self._line_ok(self.copies.get(path.removeprefix("pathname:///")), anchor)
        if self.fmt == "markdown":
            file = (self.ctx.links.output / posixpath.dirname(page) / path).resolve()
            return file.is_file() and self._lines_ok(file, anchor)
        if self.fmt == "hugo" and not path.endswith(".md"):
            from aiagent.engines.wiki.sites import hugo_url

            dst = posixpath.normpath(posixpath.join(hugo_url(page) or ".", path))
            return dst.rstrip("/") in self.urls or self._line_ok(self.copies.get(dst), anchor)
        dst = posixpath.normpath(posixpath.join(posixpath.dirname(page) or ".", path))
        return dst in self.paths or self._line_ok(self.copies.get(dst), anchor)

    def _line_ok(self, rel: str | None, anchor: str) -> bool:
        return rel is not None and self._lines_ok(self.ctx.model.root / rel, anchor)

    @staticmethod
    def _lines_ok(file: Path, anchor: str) -> bool:
        if not re.fullmatch(r"L\d+", anchor):
            return file.is_file()
        try:
            with file.open("rb") as fh:
                return int(anchor[1:]) <= sum(1 for _ in fh)
        except OSError:
            return False


def _diagrams(page: Page, result: PageCheck) -> None:

    for lang, text in BLOCK.findall(page.body):
        result.diagrams += 1
        if lang != "mermaid":
            continue
        try:
            diagram = parse(text, max_lines=10_000)
        except DiagramError as exc:
            size = str(exc).startswith("more than") and "lines" not in str(exc)
            result.diagram_problems.append(f"over the size limits: {exc}" if size else f"does not parse: {exc}")
            continue
        if diagram.graph is not None:
            nodes, edges = len(diagram.graph.nodes), len(diagram.graph.edges)
        else:
            assert diagram.sequence is not None
            nodes = len(diagram.sequence.participants)
            edges = sum(1 for s in diagram.sequence.steps if s[0] == "message")
        if nodes > MAX_NODES or edges > MAX_EDGES:
            result.diagram_problems.append(f"{nodes} nodes and {edges} edges (limits {MAX_NODES} and {MAX_EDGES})")


def text_report(report: CheckReport) -> str:
    totals = report.totals()
    verdict = "pass" if report.passed else "FAIL"
    lines = [f"wiki check: score {report.score:g} (minimum {report.minimum:g}): {verdict}"]
    for name, label in (("symbols", "public symbols listed on their module's page"),
                        ("links", "links that resolve"),
                        ("diagrams", "diagrams that parse within the size limits")):
        good, total = totals[name]
        pct = f"{100.0 * good / total:.1f} %" if total else "none to check"
        lines.append(f"  {label}: {good}/{total} ({pct})")
    lines.append("  truth checks (model passes): " + _truth_line(report.truth))
    bad = [p for p in report.pages if p.dead_links or p.diagram_problems or p.symbols_listed < p.symbols]
    if bad:
        lines.append("pages to look at:")
    for p in bad:
        what = [f"{len(p.dead_links)} dead links ({', '.join(p.dead_links[:3])})"] if p.dead_links else []
        what += [f"diagram {d}" for d in p.diagram_problems]
        if p.symbols_listed < p.symbols:
            what.append(f"{p.symbols - p.symbols_listed} of {p.symbols} public symbols not listed")
        lines.append(f"  {p.path}: " + "; ".join(what))
    return "\n".join(lines)


def _truth_line(truth: dict[str, Any] | None) -> str:
    if not truth:
        return "none (no model ran)"
    return (f"{truth.get('unknown_names', 0)} unknown names, {truth.get('fixed_by_reask', 0)} fixed by a "
            f"re-ask, {truth.get('removed', 0)} removed; diagrams {truth.get('diagrams_kept', 0)} kept, "
            f"{truth.get('diagrams_dropped', 0)} dropped")
