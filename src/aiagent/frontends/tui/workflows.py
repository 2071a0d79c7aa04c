"""Workflow skills as slash commands: ``/NAME [input]`` runs the workflow through the skill
runtime (activating its skill first, which may ask for permissions) and shows it like a
turn: a header, Esc to stop, the result as Markdown. The result also goes to the model
with your next message, like ``!command`` output.

Input: nothing, a JSON object, or plain text. Plain text fills the workflow's only input
field (converted to its type), else its only string field, else a ``text`` field.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from aiagent.agent.skills.tools import to_tool_result
from aiagent.contracts.events import DoneEvent, TextDeltaEvent, ToolCallEvent, ToolResultEvent
from aiagent.contracts.messages import Usage
from aiagent.frontends.tui import render
from aiagent.frontends.tui.running import run_events
from aiagent.frontends.tui.shell import capped
from aiagent.frontends.tui.skills import activate, runtime_of, skill_errors

if TYPE_CHECKING:
    from aiagent.agent.skills.runtime import SkillRuntime
    from aiagent.contracts.events import AgentEvent
    from aiagent.frontends.tui.app import InteractiveApp

SCALARS: dict[str, type | tuple[type, ...]] = {"integer": int, "number": (int, float),
                                              "boolean": bool}


def workflow_commands(app: InteractiveApp) -> dict[str, str]:
    """Workflow name → description: those of active skills and those usable skills declare."""

    runtime = runtime_of(app)
    if runtime is None:
        return {}
    found: dict[str, str] = {}
    for name in runtime.available_names():
        for decl in runtime.entries[name].manifest.workflows:
            found.setdefault(decl.name, decl.description or f"workflow of skill {name}")
    for name, info in runtime.workflows().items():
        found[name] = info.description or found.get(name) or f"workflow of skill {info.skill}"
    return found


def owner_of(runtime: SkillRuntime, workflow: str) -> str | None:
    """The usable skill whose manifest declares ``workflow``."""
    for name in runtime.available_names():
        if any(w.name == workflow for w in runtime.entries[name].manifest.workflows):
            return name
    return None


def parse_input(text: str, schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The workflow's input from what was typed after ``/NAME``; ValueError says why not."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the input is not valid JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(value, dict):
            raise ValueError("the input must be a JSON object")
        return value
    props: dict[str, Any] = dict((schema or {}).get("properties") or {})
    if len(props) == 1:
        key, spec = next(iter(props.items()))
        return {key: _convert(key, text, spec if isinstance(spec, dict) else {})}
    strings = [k for k, s in props.items() if isinstance(s, dict) and s.get("type") == "string"]
    return {strings[0] if len(strings) == 1 else "text": text}


def _convert(key: str, text: str, spec: Mapping[str, Any]) -> Any:
    kind = spec.get("type")
    wanted = SCALARS.get(str(kind))
    if wanted is None:
        return text
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, wanted) or (kind != "boolean" and isinstance(value, bool)):
        raise ValueError(f"{key} must be a{'n' if kind == 'integer' else ''} {kind}, not {text!r}")
    return value


def result_text(value: Any) -> str:
    """A workflow's result as Markdown."""

    if isinstance(value, (dict, list)) and not (isinstance(value, dict) and "content" in value):
        return "```json\n" + json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n```"
    return to_tool_result(value).content


async def workflow_events(runtime: SkillRuntime, name: str, data: dict[str, Any],
                          running: list[asyncio.Future[Any]]) -> AsyncIterator[AgentEvent]:
    """One workflow run as events (header, result, Markdown text, done)."""

    call_id, label, began = f"workflow-{uuid.uuid4().hex[:8]}", f"/{name}", time.monotonic()
    yield ToolCallEvent(call_id, label, data)
    task = asyncio.ensure_future(runtime.run_workflow(name, data))
    running.append(task)
    await asyncio.wait({task})
    if task.cancelled():
        yield ToolResultEvent(call_id, label, "stopped", True)
        yield DoneEvent("interrupted", "", 1, Usage(), 130)
        return
    problem = task.exception()
    if problem is not None:
        yield ToolResultEvent(call_id, label, _error_line(problem), True)
        yield DoneEvent("error", "", 1, Usage(), 1)
        return
    text = result_text(task.result())
    yield ToolResultEvent(call_id, label, f"finished in {time.monotonic() - began:.1f}s", False)
    yield TextDeltaEvent(text or "(no result)")
    yield DoneEvent("completed", text, 1, Usage(), 0)


def _error_line(exc: BaseException) -> str:

    return str(exc) if isinstance(exc, skill_errors()) else f"{type(exc).__name__}: {exc}"


async def run_workflow_command(app: InteractiveApp, name: str, text: str) -> None:
    """``/NAME input``."""

    runtime = runtime_of(app) if await app.ready() else None
    if runtime is None:
        app.say(render.notice(f"✗ cannot run /{name}: skills are not available", "red"))
        return
    if name not in runtime.workflows():
        owner = owner_of(runtime, name)
        if owner is None:
            app.say(render.notice(f"✗ no usable skill provides workflow {name}", "red"))
            return
        if not await activate(app, owner):
            return
        if name not in runtime.workflows():
            app.say(render.notice(f"✗ skill {owner} did not register workflow {name}", "red"))
            return
    try:
        data = parse_input(text, runtime.workflows()[name].input_schema)
    except ValueError as exc:
        app.say(render.notice(f"✗ /{name}: {exc}", "red"))
        return
    running: list[asyncio.Future[Any]] = []

    def stop() -> None:
        for task in running:
            task.cancel()

    await run_events(app, workflow_events(runtime, name, data, running), stop)
    done = running[0] if running else None
    if done is not None and done.done() and not done.cancelled() and done.exception() is None:
        app.next_message.share(f'<workflow-result name="{name}">\n'
                                 f"{capped(result_text(done.result()))}\n</workflow-result>")
        app.say(render.notice("  result shared with your next message", "dim"))
