"""The UI's view of skills: list them (``/skills``), activate one (``/skill NAME``) and
answer a skill's first-use permission request (spec §4.5) with single keys.

Listing uses :mod:`aiagent.skills.loader`. Activation goes to the skill runtime when the
agent carries one (``agent.skills``, see :class:`SkillRuntime`); the runtime calls back
``approve(request)`` when a skill needs its permissions approved.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from aiagent.core.events import ApprovalRequestEvent
    from aiagent.ui.tui.app import InteractiveApp


@dataclass(frozen=True, slots=True)
class SkillInfo:
    name: str
    kind: str
    description: str


class SkillRuntime(Protocol):
    """What the UI needs from the skill runtime, found as ``agent.skills``.

    ``activate`` backs ``/skill NAME``; ``workflows`` lists workflow names that become
    slash commands (``/NAME input``); ``run_workflow`` returns either a stream of
    :data:`~aiagent.core.events.AgentEvent` (rendered like a turn) or an awaitable text.
    """

    def activate(
        self, name: str, approve: Callable[[ApprovalRequestEvent], Awaitable[str]]
    ) -> Awaitable[str] | str: ...

    def workflows(self) -> list[str]: ...

    def run_workflow(self, name: str, text: str) -> Any: ...


def workflow_names(app: InteractiveApp) -> list[str]:
    runtime = getattr(app.agent, "skills", None)
    try:
        return list(runtime.workflows()) if runtime is not None else []
    except Exception:  # noqa: BLE001 - a broken runtime only loses the commands
        return []


async def run_workflow(app: InteractiveApp, name: str, text: str) -> None:
    """``/NAME input`` for a workflow skill: events render like a turn."""
    from aiagent.ui.tui import render
    from aiagent.ui.tui.running import key_reader, make_view
    from aiagent.ui.tui.turn import TurnRunner

    runtime = getattr(app.agent, "skills", None)
    result = runtime.run_workflow(name, text)  # type: ignore[union-attr]
    if inspect.isawaitable(result):
        app.say(render.notice(str(await result)))
        return
    view = make_view(app)
    runner = TurnRunner(view, app.width(), app.workspace, app.agent.cancel)  # type: ignore[union-attr]
    view.start()
    try:
        with key_reader(app) as keys:
            await runner.run(result, keys)
    finally:
        await view.stop()


def list_skills(workspace: Path, env: Mapping[str, str]) -> list[SkillInfo]:
    try:
        from aiagent.config import paths
        from aiagent.skills.loader import default_sources, discover
    except ImportError:
        return []
    sources = default_sources(workspace, paths.project_root(workspace),
                              paths.config_dir(env), Path(env.get("HOME") or Path.home()))
    found = discover(sources)
    return [SkillInfo(e.name, ",".join(e.manifest.types), " ".join(e.manifest.description.split()))
            for e in sorted(found.skills.values(), key=lambda e: e.name)]


async def ask_outside_turn(app: InteractiveApp, event: ApprovalRequestEvent) -> str:
    """Show an approval panel between turns and wait for one key; returns the answer."""
    from aiagent.ui.tui import approval, render
    from aiagent.ui.tui.running import key_reader

    app.say(approval.approval_panel(event, app.width()))
    keymap = approval.key_map(event.options)
    with key_reader(app) as keys:
        while True:
            if keys is None:
                line = await asyncio.to_thread(input, "answer> ")
                key = line.strip() or "enter"
            else:
                key = await keys.get()
            answer = keymap.get(key)
            if answer is not None:
                break
    answer = "deny" if answer == approval.STOP else answer
    text, style = approval.answer_text(answer)
    app.say(render.notice(text, style))
    return answer


async def activate(app: InteractiveApp, name: str) -> str:
    runtime = getattr(app.agent, "skills", None)
    if runtime is None or not hasattr(runtime, "activate"):
        known = {s.name for s in list_skills(app.workspace, app.env)}
        if name not in known:
            return f"no skill {name!r} (/skills lists them)"
        return "skill activation is not available in this build yet"

    async def approve(request: ApprovalRequestEvent) -> str:
        return await ask_outside_turn(app, request)

    try:
        result: Any = runtime.activate(name, approve)
        if inspect.isawaitable(result):
            result = await result
    except Exception as exc:  # noqa: BLE001 - one line, the UI goes on
        return f"✗ {exc}"
    return str(result or f"skill {name} active")
