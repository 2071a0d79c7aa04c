"""The model passes (FR-3.2): per-module summaries bottom-up from the leaves of the module
graph, then the cross-cutting synthesis, then deep-dives on the most central modules —
``depth`` (quick | standard | deep, ``data/analysis.toml``) says how far to go.

Each call is one :func:`~aiagent.infra.providers.structured.ask_json` with a bounded briefing
(:mod:`aiagent.engines.wiki.briefing`) and a JSON schema; several calls are in flight at once,
bounded by ``concurrency``. An answer is then checked (:mod:`aiagent.engines.wiki.truth`, diagrams
by :mod:`aiagent.engines.wiki.modeldiagrams`): unknown names or an invalid diagram get one bounded
re-ask, and what is still wrong is removed and counted. An answer that stays invalid JSON
after the re-asks leaves that part static (the module page keeps its static content) and is
reported; a provider failure (context limit, refused key…) ends the run with no wiki written.

Incremental (FR-3.7): the answers are stored in the manifest with the prompts' version; a
module the plan reuses takes its stored answer and costs no call.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from aiagent.contracts.messages import Usage
from aiagent.contracts.providers import Provider
from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.briefing import (
    auth_briefing,
    config,
    deep_briefing,
    module_briefing,
    module_centrality,
    page_briefing,
    synthesis_briefing,
)
from aiagent.engines.wiki.cluster import Module
from aiagent.engines.wiki.manifest import Plan
from aiagent.engines.wiki.modeldiagrams import DiagramError, parse
from aiagent.engines.wiki.steeringpages import page_paths, stored_key
from aiagent.engines.wiki.truth import NAME, SPAN, Names, drop, unknown

DEPTHS = ("quick", "standard", "deep")
DIAGRAM_KEYS = ("data_flow_diagram", "diagram")
NAME_KEYS = ("name",)
Cost = Callable[[Usage], float | None]
Say = Callable[[str], None]


@dataclass(slots=True)
class Analyst:
    """What the front-end hands in: a provider built by app.py, and the knobs."""

    provider: Provider
    model: str
    depth: str = "standard"
    concurrency: int = 4
    cost: Cost | None = None


@dataclass(slots=True)
class Report:
    calls: int = 0
    usage: Usage = field(default_factory=Usage)
    analysed: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    static_only: list[str] = field(default_factory=list)  # answers that stayed invalid JSON
    names_unknown: int = 0
    names_fixed: int = 0
    names_removed: int = 0
    diagrams_kept: int = 0
    diagrams_dropped: int = 0
    largest_briefing: int = 0
    cost_usd: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "usage": self.usage.as_dict(), "cost_usd": self.cost_usd,
                "analysed": sorted(self.analysed), "reused": sorted(self.reused),
                "static_only": sorted(self.static_only),
                "truth": {"unknown_names": self.names_unknown, "fixed_by_reask": self.names_fixed,
                          "removed": self.names_removed, "diagrams_kept": self.diagrams_kept,
                          "diagrams_dropped": self.diagrams_dropped},
                "largest_briefing_chars": self.largest_briefing}


@dataclass(slots=True)
class Analysis:
    modules: dict[str, dict[str, Any]] = field(default_factory=dict)
    synthesis: dict[str, Any] | None = None
    deep: dict[str, dict[str, Any]] = field(default_factory=dict)
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)  # path -> {"key", "answer"}
    auth: dict[str, Any] | None = None  # the auth review: {"key": briefing digest, "answer"}
    report: Report = field(default_factory=Report)

    def stored(self, depth: str) -> dict[str, Any]:
        return {"prompts": prompts_version(), "depth": depth, "modules": self.modules,
                "synthesis": self.synthesis, "deep": self.deep, "pages": self.pages, "auth": self.auth}


@cache
def _data(name: str) -> str:
    return resources.files("aiagent.engines.wiki").joinpath(f"data/{name}").read_text("utf-8")


@cache
def schema(kind: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(_data(f"{kind}.schema.json"))
    return loaded


@cache
def prompts_version() -> str:
    digest = hashlib.sha256()
    for name in ("analysis.toml", "module.schema.json", "synthesis.schema.json", "deepdive.schema.json",
                 "page.schema.json", "auth.schema.json", "prompts/auth.md", "prompts/system.md", "prompts/module.md", "prompts/synthesis.md",
                 "prompts/deepdive.md", "prompts/page.md", "prompts/fix.md"):
        digest.update(name.encode() + b"\0" + _data(name).encode() + b"\0")
    return "model-" + digest.hexdigest()[:16]


def levels(modules: list[Module]) -> list[list[str]]:
    """Module ids in rounds, leaves first: a module comes after the modules it imports (a
    cycle is broken at the modules with the fewest imports not yet done)."""
    remaining = {m.id: set(m.deps_out) - {m.id} for m in modules}
    done: set[str] = set()
    rounds: list[list[str]] = []
    while remaining:
        ready = sorted(i for i, deps in remaining.items() if deps <= done)
        if not ready:
            least = min(len(d - done) for d in remaining.values())
            ready = sorted(i for i, d in remaining.items() if len(d - done) == least)
        rounds.append(ready)
        done.update(ready)
        for i in ready:
            del remaining[i]
    return rounds


def previous_analysis(previous: dict[str, object] | None) -> dict[str, Any]:
    data = previous.get("analysis") if isinstance(previous, dict) else None
    if not isinstance(data, dict) or data.get("prompts") != prompts_version():
        return {}
    return data


class _Run:
    def __init__(self, ctx: Context, analyst: Analyst) -> None:
        self.ctx, self.analyst = ctx, analyst
        self.names = Names.of(ctx.model, [m.id for m in ctx.modules] + [m.name for m in ctx.modules])
        self.limit = asyncio.Semaphore(max(1, analyst.concurrency))
        self.calls = config()["calls"]
        self.analysis = Analysis()
        self.system = _data("prompts/system.md")

    async def ask(self, kind: str, briefing: str, label: str) -> dict[str, Any] | None:
        from aiagent.infra.providers.structured import StructuredOutputError, ask_json

        report = self.analysis.report
        report.largest_briefing = max(report.largest_briefing, len(briefing))
        template = _data(f"prompts/{'deepdive' if kind == 'deep' else kind}.md")
        prompt = template.format(schema=json.dumps(schema(_schema_name(kind))), briefing=briefing)
        async with self.limit:
            try:
                value = await self._ask_json(ask_json, prompt, kind)
            except StructuredOutputError as exc:
                report.calls += exc.attempts
                report.usage = report.usage + exc.usage
                report.static_only.append(label)
                return None
            problems = self.problems(value)
            found = len(unknown(self.names, _prose(value)))
            if problems and int(self.calls["truth_reasks"]) > 0:
                fix = _data("prompts/fix.md").format(problems="\n".join(f"- {p}" for p in problems[:20]),
                                                     previous=json.dumps(value)[:8000])
                try:
                    value = await self._ask_json(ask_json, prompt + "\n\n" + fix, kind)
                except StructuredOutputError as exc:
                    report.calls += exc.attempts
                    report.usage = report.usage + exc.usage
        return self.finish(value, found)

    async def _ask_json(self, ask_json: Any, prompt: str, kind: str) -> Any:
        answer = await ask_json(self.analyst.provider, self.analyst.model, system=self.system, prompt=prompt,
                                schema=schema(_schema_name(kind)), max_reasks=int(self.calls["max_reasks"]),
                                max_tokens=int(self.calls["max_output_tokens"]))
        self.analysis.report.calls += answer.attempts
        self.analysis.report.usage = self.analysis.report.usage + answer.usage
        return answer.value

    def problems(self, value: Any) -> list[str]:
        bad = [f"`{n}` is not a name in the code" for n in unknown(self.names, _prose(value))]
        for key, text in _diagrams(value):
            try:
                parse(text, int(config()["limits"]["max_diagram_lines"]))
            except DiagramError as exc:
                bad.append(f"{key}: invalid diagram: {exc}")
        return bad

    def finish(self, value: dict[str, Any], found: int) -> dict[str, Any]:
        """Unknown names removed, invalid diagrams dropped, both counted."""
        report = self.analysis.report
        cleaned: dict[str, Any]
        cleaned, removed = _clean(self.names, value)
        for key, text in _diagrams(cleaned):
            try:
                parse(text, int(config()["limits"]["max_diagram_lines"]))
                report.diagrams_kept += 1
            except DiagramError:
                cleaned[key] = ""
                report.diagrams_dropped += 1
        report.names_unknown += max(found, removed)
        report.names_removed += removed
        report.names_fixed += max(0, found - removed)
        return cleaned


def _table(stored: dict[str, Any], key: str) -> dict[str, Any]:
    """``stored[key]`` when it is a table (a stored answer from an older run may not be)."""
    value = stored.get(key)
    return value if isinstance(value, dict) else {}


def _schema_name(kind: str) -> str:
    return {"deep": "deepdive"}.get(kind, kind)


def _prose(value: Any, key: str = "") -> str:
    """Every prose string of an answer, names written as code spans, for the check."""
    if isinstance(value, str):
        if key in DIAGRAM_KEYS:
            return ""
        return f"`{value.strip('`')}`" if key in NAME_KEYS and NAME.fullmatch(value.strip("`")) else value
    if isinstance(value, list):
        return "\n\n".join(_prose(v, key) for v in value)
    if isinstance(value, dict):
        return "\n\n".join(_prose(v, k) for k, v in value.items())
    return ""


def _diagrams(value: dict[str, Any]) -> list[tuple[str, str]]:
    return [(k, value[k]) for k in DIAGRAM_KEYS if isinstance(value.get(k), str) and value[k].strip()]


def _clean(names: Names, value: Any, key: str = "") -> tuple[Any, int]:
    if isinstance(value, str):
        return (value, 0) if key in DIAGRAM_KEYS or key in NAME_KEYS else drop(names, value)
    if isinstance(value, list):
        out, gone = [], 0
        for item in value:
            bad = len(unknown(names, _prose(item, key)))
            if bad:
                gone += bad
            else:
                out.append(item)
        return out, gone
    if isinstance(value, dict):
        result, gone = {}, 0
        for k, v in value.items():
            result[k], n = _clean(names, v, k)
            gone += n
        return result, gone
    return value, 0


def prerequisites(modules: list[Module]) -> dict[str, set[str]]:
    """For each module, the modules it waits for: every module it imports, except inside an
    import cycle, where it waits only for those of an earlier round of :func:`levels` (so the
    cycle is broken where ``levels`` breaks it, and nothing waits in a circle)."""
    deps = {m.id: set(m.deps_out) - {m.id} for m in modules}
    reach = {mid: _reachable(mid, deps) for mid in deps}
    seen: set[str] = set()
    out: dict[str, set[str]] = {}
    for round_ in levels(modules):
        for mid in round_:
            out[mid] = {d for d in deps[mid] if d in deps and (d in seen or mid not in reach[d])}
        seen.update(round_)
    return out


def _reachable(start: str, deps: dict[str, set[str]]) -> set[str]:
    found: set[str] = set()
    stack = [start]
    while stack:
        for dep in deps.get(stack.pop(), ()):
            if dep not in found and dep in deps:
                found.add(dep)
                stack.append(dep)
    return found


async def _modules(run: _Run, todo: Plan, stored: dict[str, Any], say: Say) -> None:
    """Each module starts as soon as the modules it imports are done (not round by round);
    ``run.limit`` bounds the calls in flight, and waiters get it leaves first (FIFO)."""
    ctx, analysis = run.ctx, run.analysis
    old = _table(stored, "modules")
    by_id = {m.id: m for m in ctx.modules}
    waits = prerequisites(ctx.modules)
    done = {mid: asyncio.Event() for mid in waits}

    async def one(mid: str) -> None:
        for dep in waits[mid]:
            await done[dep].wait()
        if mid in todo.reused and isinstance(old.get(mid), dict):
            analysis.modules[mid] = old[mid]
            analysis.report.reused.append(mid)
        else:
            summaries = {k: str(analysis.modules[k].get("summary", "")) for k in waits[mid] if k in analysis.modules}
            answer = await run.ask("module", module_briefing(ctx, by_id[mid], summaries), mid)
            analysis.report.analysed.append(mid)
            if answer is not None:
                analysis.modules[mid] = answer
        done[mid].set()
        tell_progress(say, run, sum(e.is_set() for e in done.values()), len(done))

    tasks = [asyncio.create_task(one(mid)) for round_ in levels(ctx.modules) for mid in round_]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def tell_progress(say: Say, run: _Run, done: int, total: int) -> None:
    """Modules done and tokens/cost so far, to a ``say`` that shows them (wiki.progress)."""
    modules, usage = getattr(say, "modules", None), getattr(say, "usage", None)
    if callable(modules):
        modules(done, total)
    if callable(usage):
        used = run.analysis.report.usage
        cost = run.analyst.cost(used) if run.analyst.cost is not None else None
        usage(used.input_tokens + used.output_tokens, cost)


async def _synthesis_and_deep(run: _Run, stored: dict[str, Any], steps: list[str]) -> None:
    ctx, analysis = run.ctx, run.analysis
    fresh = set(analysis.report.analysed)
    summaries = {k: str(v.get("summary", "")) for k, v in analysis.modules.items()}
    if "synthesis" in steps:
        kept = stored.get("synthesis")
        if not fresh and isinstance(kept, dict):
            analysis.synthesis = kept
        else:
            analysis.synthesis = await run.ask("synthesis", synthesis_briefing(ctx, summaries), "synthesis")
    if "deep" in steps:
        old = _table(stored, "deep")
        central = module_centrality(ctx)[: int(config()["depth"]["deep_dives"])]
        todo = [m for m in central if m.id in fresh or not isinstance(old.get(m.id), dict)]
        for m in central:
            if m not in todo:
                analysis.deep[m.id] = old[m.id]
        answers = await asyncio.gather(*(run.ask("deep", deep_briefing(ctx, m, summaries.get(m.id, "")),
                                                 f"deep-dive {m.id}") for m in todo))
        for m, answer in zip(todo, answers, strict=True):
            if answer is not None:
                analysis.deep[m.id] = answer


async def _steering_pages(run: _Run, stored: dict[str, Any]) -> None:
    """The steering file's pages (at most ``max_pages``), each from its own briefing; a stored
    answer is reused when no module changed and its title and instructions are the same."""

    ctx, analysis = run.ctx, run.analysis
    old = _table(stored, "pages")
    fresh = bool(analysis.report.analysed)
    summaries = {k: str(v.get("summary", "")) for k, v in analysis.modules.items()}
    todo = []
    for page, path in page_paths(ctx.steering)[: int(config()["briefing"]["max_pages"])]:
        kept = old.get(path)
        if not fresh and isinstance(kept, dict) and kept.get("key") == stored_key(page) \
                and isinstance(kept.get("answer"), dict):
            analysis.pages[path] = kept
        else:
            todo.append((page, path))
    answers = await asyncio.gather(*(run.ask("page", page_briefing(ctx, p.title, p.instructions, summaries),
                                             f"page {path}") for p, path in todo))
    for (page, path), answer in zip(todo, answers, strict=True):
        if answer is not None:
            analysis.pages[path] = {"key": stored_key(page), "answer": answer}


async def _auth_review(run: _Run, stored: dict[str, Any]) -> None:
    """The model's review of authentication and authorization (security/auth-review.md). Its
    key is the briefing's digest: the same findings, files and summaries reuse the stored
    answer, with no call."""

    summaries = {k: str(v.get("summary", "")) for k, v in run.analysis.modules.items()}
    briefing = auth_briefing(run.ctx, summaries)
    key = hashlib.sha256(briefing.encode()).hexdigest()[:16]
    kept = stored.get("auth")
    if isinstance(kept, dict) and kept.get("key") == key and isinstance(kept.get("answer"), dict):
        run.analysis.auth = kept
        return
    answer = await run.ask("auth", briefing, "auth review")
    if answer is not None:
        run.analysis.auth = {"key": key, "answer": answer}


async def analyse(ctx: Context, analyst: Analyst, todo: Plan, previous: dict[str, object] | None,
                  say: Say) -> Analysis:
    """Run the passes ``analyst.depth`` asks for; the answers, checked, and the report."""
    steps = list(config()["depth"][analyst.depth])
    stored = previous_analysis(previous)
    run = _Run(ctx, analyst)
    await _modules(run, todo, stored, say)
    if len(steps) > 1:
        await _synthesis_and_deep(run, stored, steps)
    if ctx.steering.pages:
        await _steering_pages(run, stored)
    if ctx.audit is not None and "synthesis" in steps:
        await _auth_review(run, stored)
    report = run.analysis.report
    report.cost_usd = analyst.cost(report.usage) if analyst.cost is not None else None
    return run.analysis


def report_lines(report: Report, model: str) -> list[str]:
    reused = f"; reused {len(report.reused)} stored summaries" if report.reused else ""
    usage = report.usage
    cost = f"${report.cost_usd:.4f}" if report.cost_usd is not None else f"cost unknown for {model}"
    lines = [f"model: analysed {len(report.analysed)} modules{reused}",
             f"model: {report.calls} calls, {usage.input_tokens} input + {usage.output_tokens} output tokens, {cost}",
             f"truth: {report.names_unknown} unknown names ({report.names_fixed} fixed by a re-ask, "
             f"{report.names_removed} removed), {report.diagrams_dropped} invalid diagrams dropped, "
             f"{report.diagrams_kept} kept"]
    if report.static_only:
        lines.append("model: no valid answer (kept static): " + ", ".join(sorted(report.static_only)[:10]))
    return lines


__all__ = ["SPAN", "Analyst", "Analysis", "Report", "analyse", "levels", "prerequisites", "report_lines"]
