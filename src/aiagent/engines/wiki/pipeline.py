"""The stages in order. ``generate`` is what ``aiagent wiki`` runs; ``progress`` gets one
line per stage (the CLI prints them on stderr)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.wiki.assemble import Context, assemble, title
from aiagent.engines.wiki.cluster import cluster
from aiagent.engines.wiki.errors import WikiError
from aiagent.engines.wiki.extras import extra_pages
from aiagent.engines.wiki.hooks import open_hooks
from aiagent.engines.wiki.manifest import (
    MANIFEST,
    Plan,
    load_previous,
    manifest_text,
    module_hashes,
    plan,
)
from aiagent.engines.wiki.model import build_model
from aiagent.engines.wiki.pages import Links
from aiagent.engines.wiki.render import check_output, pages_dir, site_notes, write_wiki
from aiagent.engines.wiki.scan import scan
from aiagent.engines.wiki.skillpages import classifiers
from aiagent.engines.wiki.sourcelinks import web_base
from aiagent.engines.wiki.steering import load_steering
from aiagent.engines.wiki.withmodel import model_stage, prompts_for

if TYPE_CHECKING:
    from aiagent.engines.wiki.passes import Analyst
    from aiagent.engines.wiki.skillpages import SkillWiki
    from aiagent.engines.wiki.testrun import TestOptions

Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class WikiRequest:
    root: Path
    output: Path
    fmt: str = "markdown"
    full: bool = False
    diagram_format: str = "mermaid"
    security: bool = True
    analyst: Analyst | None = None  # the model passes; None: the static wiki
    tests: TestOptions | None = None  # --test-report: run the project's tests
    skills: tuple[SkillWiki, ...] = ()  # the wiki contributions of the active skills
    mermaid_js: Path | None = None  # a local mermaid.min.js for the mkdocs and Hugo sites
    settings: Any = None  # the front-end's Settings: skill hooks and [wiki] options
    skill_runtime: Any = None  # the front-end's skill runtime factory (Application.skill_runtime)
    check_min: float | None = None  # --check: the quality report's minimum score (None: no report)


@dataclass(frozen=True, slots=True)
class WikiSummary:
    pages: int
    modules: int
    changed: tuple[str, ...]
    files: int
    lines: int
    check: Any = None  # aiagent.engines.wiki.check.CheckReport with --check


def generate(req: WikiRequest, say: Say) -> WikiSummary:

    root, output = req.root.resolve(), req.output.resolve()
    check_output(output)
    steering = load_steering(root)
    scanned = scan(root, steering, skip=(output,), classifiers=_skill_classifiers(req))
    say(f"scan: {len(scanned.files)} files ({len(scanned.of_kind('source'))} source)")
    model = build_model(scanned)
    say(f"model: {model.total_lines} lines, {len(model.symbols())} symbols, {len(model.calls)} call edges")
    modules = cluster(model)
    say(f"cluster: {len(modules)} modules")
    hashes = module_hashes(model, modules)

    previous = load_previous(output)
    todo = plan(previous, hashes, modules, req.fmt, req.full, prompts_for(req.analyst))
    say(_plan_line(todo))

    links = Links(root, pages_dir(output, req.fmt), req.fmt, web_base(root))
    ctx = Context(model, modules, links, steering,
                  diagram_format=req.diagram_format)
    if req.security:
        ctx.audit, ctx.audit_error = _audit(root, output)
        say("security: " + (f"{len(ctx.audit.findings)} findings" if ctx.audit else f"skipped ({ctx.audit_error})"))
    extra, lines = model_stage(ctx, req.analyst, todo, previous, say) if req.analyst else ({}, [])
    pages = assemble(ctx)
    pages += extra_pages(req, ctx, say)
    pages = _section_hooks(req, pages, title(ctx), say)
    write_wiki(pages, output, req.fmt, title(ctx),
               {MANIFEST: manifest_text(hashes, req.fmt, prompts_for(req.analyst), extra)}, links.copies(),
               req.mermaid_js)
    say(f"wrote {len(pages)} pages to {output}")
    diagrams = any("```mermaid" in page.body for page in pages)
    for line in site_notes(req.fmt, output, req.mermaid_js is not None, diagrams):
        say(line)
    for line in lines:
        say(line)
    report = None
    if req.check_min is not None:
        from aiagent.engines.wiki.check import check_pages

        report = check_pages(ctx, pages, extra.get("model_report", {}).get("truth"), req.check_min)
    return WikiSummary(len(pages), len(modules), todo.changed, len(model.files), model.total_lines, report)


def _section_hooks(req: WikiRequest, pages: list[Any], name: str, say: Say) -> list[Any]:
    """The pages through the skills' ``on_before_wiki_section`` hooks (:mod:`.hooks`)."""
    if not any(s.has_code for s in req.skills):
        return pages

    hooks = open_hooks(req.skill_runtime, req.settings, req.root.resolve(), req.skills, say)
    if hooks is None:
        return pages
    try:
        return hooks.apply(pages, req.root.resolve(), name)
    finally:
        hooks.close()


def _skill_classifiers(req: WikiRequest) -> list[tuple[object, str]]:

    return classifiers(req.skills) if req.skills else []


def _plan_line(todo: Plan) -> str:
    if todo.reason != "incremental":
        return f"analyse: all {len(todo.changed)} modules ({todo.reason})"
    names = ", ".join(todo.changed[:10]) + (" …" if len(todo.changed) > 10 else "")
    return (f"analyse: {len(todo.changed)} changed modules{': ' + names if names else ''}; "
            f"reused {len(todo.reused)}")


def _audit(root: Path, output: Path) -> tuple[object, str]:
    from aiagent.engines.security.config import find_config, load_config
    from aiagent.engines.security.engine import AuditOptions, run_audit

    try:
        config = load_config(find_config(root))
    except SecurityConfigError as exc:
        raise WikiError(str(exc)) from None
    try:
        rel = output.relative_to(root).as_posix()
        exclude = (*config.exclude, f"{rel}/**") if rel != "." else config.exclude
    except ValueError:
        exclude = config.exclude
    from dataclasses import replace

    return run_audit(root, replace(config, exclude=tuple(exclude)), AuditOptions(jobs=1)), ""
