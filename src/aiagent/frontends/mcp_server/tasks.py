"""What each tool does, inside the worker process (:mod:`.worker`).

Every task takes the call's checked arguments (paths already resolved inside the root by
the server) and a :class:`Job` (the root, the server's settings flags, a progress sink) and
returns a JSON-ready dict, or raises :class:`TaskError` with one line for the client.
The engines are the ones the CLI runs: the headless agent run through ``Application``
(provider and model from :meth:`Application.resolve`), ``run_audit``, the review pipeline,
the static log analysis and the wiki pipeline.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from aiagent.infra.config.settings import ConfigError, Settings

ProgressSink = Callable[[float, float | None, str], None]


class TaskError(Exception):
    """A call that cannot be done; its message goes to the client as the tool's error."""


@dataclass(frozen=True, slots=True)
class Job:
    root: Path
    flags: dict[str, Any]  # the server's settings layer (approval cap, trust, provider, model)
    progress: ProgressSink


def settings(job: Job, extra: dict[str, Any] | None = None, cwd: Path | None = None) -> Settings:
    from aiagent.infra.config.settings import merge

    layer = merge(job.flags, extra) if extra else job.flags
    try:
        return Settings.load(cwd or job.root, layer)
    except ConfigError as exc:
        raise TaskError(str(exc)) from None


# ---- run_task --------------------------------------------------------------------------

def run_task(args: dict[str, Any], job: Job) -> dict[str, Any]:
    """A headless agent run: the agent ``Application`` builds, driven as ``--headless``
    drives it (approvals it would ask for are refused), its transcript as JSON."""
    from aiagent.agent.core.session import SessionRequest
    from aiagent.app import Application
    from aiagent.contracts.providers import AuthError, ProviderError
    from aiagent.frontends.headless import drive, to_json

    agent_layer: dict[str, Any] = {"approval_mode": args["approval_mode"]}
    if args.get("max_turns"):
        agent_layer["max_turns"] = args["max_turns"]
    if args.get("tools") is not None:
        agent_layer["tools"] = narrowed(settings(job, {"agent": dict(agent_layer)}), args["tools"])
    app = Application(settings(job, {"agent": agent_layer}), interactive=False)
    try:
        choice = app.resolve()
        session = app.session(SessionRequest(), title=args["prompt"])
    except (AuthError, ConfigError, ProviderError) as exc:
        raise TaskError(str(exc)) from None
    try:
        # the steps of Application.start without its pre-approval of a --tools list: a
        # client's tool list narrows what the model is offered, it approves nothing
        agent = app.agent(session, app.policy(session))
    except (ConfigError, ProviderError) as exc:
        session.close(discard_if_empty=True)
        raise TaskError(str(exc)) from None
    renderer = _ProgressRenderer(job.progress, app.settings.agent.max_turns)
    try:
        transcript = asyncio.run(drive(agent, args["prompt"], cast(Any, renderer)))
    finally:
        session.close()
    out = to_json(transcript)
    out.update(provider=choice.name, model=choice.model, session_id=session.info.id,
               approval_mode=args["approval_mode"])
    return out


def narrowed(conf: Settings, names: list[str]) -> list[str]:
    """A client's tool list, expanded (groups such as ``read``) and checked against what the
    server's own settings offer: it may leave tools out, never add one."""
    from aiagent.agent.tools.base import ToolRegistry
    from aiagent.app import expand_tool_names, offered_tools

    registry = ToolRegistry()
    try:
        offered = set(offered_tools(conf, registry))
        wanted = expand_tool_names(names, registry, "tools")
    except ConfigError as exc:
        raise TaskError(str(exc)) from None
    extra = [n for n in wanted if n not in offered]
    if extra:
        raise TaskError(f"tools: {extra[0]!r} is not offered by this server's settings "
                        f"(offered: {', '.join(sorted(offered))})")
    return wanted


class _ProgressRenderer:
    """The headless renderer's place in :func:`drive`: each turn and tool call is a
    progress step (turns out of the turn limit)."""

    def __init__(self, progress: ProgressSink, max_turns: int) -> None:
        self.progress, self.max_turns, self.turns = progress, max_turns, 0

    def event(self, event: Any, transcript: Any) -> None:
        from aiagent.contracts.events import ToolCallEvent, TurnEndEvent

        if isinstance(event, TurnEndEvent):
            self.turns += 1
            self.progress(self.turns, self.max_turns or None, f"turn {self.turns} done")
        elif isinstance(event, ToolCallEvent):
            self.progress(self.turns, self.max_turns or None, f"tool call: {event.name}")


# ---- security_audit --------------------------------------------------------------------

SEVERITIES = ("info", "low", "medium", "high", "critical")


def security_audit(args: dict[str, Any], job: Job) -> dict[str, Any]:
    """The offline security engine on a file or folder; findings at or above
    ``min_severity``, as the CLI's JSON report."""
    from aiagent.engines.security.config import load_config
    from aiagent.engines.security.defaults import load_defaults, policy_path
    from aiagent.engines.security.engine import AuditOptions, run_audit
    from aiagent.engines.security.errors import SecurityConfigError
    from aiagent.engines.security.paths import cache_dir, default_osv_db
    from aiagent.engines.security.report.json_report import as_dict

    target: Path = args["path"]
    base = target if target.is_dir() else target.parent
    job.progress(0, None, f"auditing {target}")
    try:
        config = load_config(policy_path(base, None, load_defaults(settings(job, cwd=base))))
        options = AuditOptions(jobs=1, cache_path=cache_dir() / "scan-cache.sqlite",
                               osv_db=default_osv_db(),
                               progress=lambda done, total: job.progress(done, total, "scanning"))
        result = run_audit(target, config, options)
    except SecurityConfigError as exc:
        raise TaskError(str(exc)) from None
    report = as_dict(result)
    floor = SEVERITIES.index(args.get("min_severity") or "info")
    kept = [f for f in report["findings"] if SEVERITIES.index(f.get("severity", "info")) >= floor]
    limit = args.get("max_findings")
    report["summary"]["returned"] = len(kept[:limit] if limit else kept)
    report["findings"] = kept[:limit] if limit else kept
    return report


# ---- review_diff -----------------------------------------------------------------------

def review_diff(args: dict[str, Any], job: Job) -> dict[str, Any]:
    """The code review of a git selection (working tree, ``staged``, ``base`` or ``range``).
    Without a model it is an error unless ``static_only``: the model part is the review."""
    from aiagent.agent.core.session import SessionRequest
    from aiagent.app import Application
    from aiagent.contracts.providers import AuthError, ProviderError
    from aiagent.engines.review import (
        DiffSpec,
        PipelineError,
        ReviewInputError,
        ReviewRequest,
        review,
    )
    from aiagent.engines.review.render import RENDERERS
    from aiagent.engines.security.defaults import load_defaults

    folder: Path = args["path"]
    spec = DiffSpec(range=args.get("range") or "", staged=bool(args.get("staged")),
                    base=args.get("base") or "")
    conf = settings(job, {"agent": {"approval_mode": "read-only"}}, cwd=folder)
    app = Application(conf, interactive=False)
    built: list[Any] = []
    if not args.get("static_only"):
        try:
            app.resolve()
        except AuthError as exc:
            raise TaskError(f"no model configured for the review ({exc}); pass static_only=true "
                            "for the static part alone") from None

    def make_agent() -> Any:
        if args.get("static_only"):
            return None
        try:
            started = app.start(SessionRequest(), title=f"code review of {spec.describe()}")
        except (ConfigError, ProviderError) as exc:
            raise TaskError(str(exc)) from None
        built.append(started)
        return started.agent

    job.progress(0, None, f"reviewing {spec.describe()}")
    try:
        report = review(ReviewRequest(folder, spec, security=load_defaults(conf)), make_agent)
    except (ReviewInputError, ConfigError, PipelineError) as exc:
        raise TaskError(str(exc)) from None
    finally:
        for started in built:
            started.close()
    return {**json.loads(RENDERERS["json"](report, "")), "notes": report.notes,
            "errors": report.errors, "model_used": report.model_used}


# ---- analyze_log -----------------------------------------------------------------------

def analyze_log(args: dict[str, Any], job: Job) -> dict[str, Any]:
    """The static log analysis (no model) of a file inside the root or of the given text."""
    import io

    from aiagent.engines.logs.render import MODEL_WOULD_ADD, document
    from aiagent.engines.logs.source import LogInputError, open_log
    from aiagent.engines.logs.static import analyse

    path: Path | None = args.get("path")
    text = args.get("text")
    stream = io.BytesIO((text or "").encode("utf-8"))
    try:
        source = open_log(path, stream)
    except LogInputError as exc:
        raise TaskError(str(exc)) from None

    def progress(done: int, lines: int) -> None:
        job.progress(done, source.total, f"{lines} lines read")

    try:
        static = analyse(source, progress)
    except LogInputError as exc:
        raise TaskError(str(exc)) from None
    finally:
        source.close()
    return document(static, None, model_note=f"static report only; {MODEL_WOULD_ADD}")


# ---- build_wiki ------------------------------------------------------------------------

def build_wiki(args: dict[str, Any], job: Job) -> dict[str, Any]:
    """The static wiki (no model passes, no test run) of the root into ``out_dir``."""
    from aiagent.app import Application
    from aiagent.engines.wiki.errors import WikiError
    from aiagent.engines.wiki.pipeline import WikiRequest, generate

    conf = settings(job)
    say = _WikiProgress(job.progress)
    req = WikiRequest(job.root, args["out_dir"], args.get("format") or "markdown",
                      bool(args.get("full")), args.get("diagrams") or "mermaid",
                      bool(args.get("security", True)), None, settings=conf,
                      skill_runtime=Application(conf, interactive=False).skill_runtime)
    try:
        summary = generate(req, say)
    except (WikiError, ConfigError) as exc:
        raise TaskError(str(exc)) from None
    return {"out_dir": str(args["out_dir"]), "format": req.fmt, "pages": summary.pages,
            "modules": summary.modules, "files": summary.files, "lines": summary.lines,
            "changed": list(summary.changed), "stages": say.lines}


class _WikiProgress:
    """The wiki pipeline's ``say``: each stage line and module count is a progress step."""

    def __init__(self, progress: ProgressSink) -> None:
        self.progress, self.step = progress, 0
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.step += 1
        self.lines.append(line)
        self.progress(self.step, None, line)

    def modules(self, done: int, total: int) -> None:
        self.progress(self.step, None, f"modules: {done}/{total}")

    def usage(self, tokens: int, cost: float | None = None) -> None:
        del tokens, cost


TASKS: dict[str, Callable[[dict[str, Any], Job], dict[str, Any]]] = {
    "run_task": run_task, "security_audit": security_audit, "review_diff": review_diff,
    "analyze_log": analyze_log, "build_wiki": build_wiki,
}
