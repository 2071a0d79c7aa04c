"""One turn from the app's side: checkpoint, view, keys, the run, and tidying up after."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

from aiagent.frontends.tui import render
from aiagent.frontends.tui.turn import TurnRunner, TurnState, close_cancelled

if TYPE_CHECKING:
    from aiagent.contracts.events import AgentEvent
    from aiagent.frontends.tui.app import InteractiveApp


def make_view(app: InteractiveApp) -> Any:
    from aiagent.frontends.tui.view import PlainView, TurnView

    if app.term.tty:
        return TurnView(app.console, app.term)
    return PlainView(app.out, app.console)


@contextlib.contextmanager
def key_reader(app: InteractiveApp) -> Iterator[Any]:
    """Single keys from the terminal while the turn runs (None in line mode)."""
    if not app.term.tty:
        yield None
        return
    from aiagent.frontends.tui.terminal import KeyReader

    with KeyReader() as keys:
        yield keys


def line_asker(app: InteractiveApp) -> Any:
    async def ask(prompt: str) -> str | None:
        app.out.write(prompt)
        app.out.flush()
        line: str = await asyncio.to_thread(sys.stdin.readline)
        return line.rstrip("\n") if line else None

    return ask


async def run_turn(app: InteractiveApp, prompt: str) -> None:
    agent, parts = app.agent, app.parts
    assert agent is not None and parts is not None
    checkpoints = parts.checkpoints
    if checkpoints is not None:
        app._checkpoint_task = asyncio.ensure_future(
            asyncio.to_thread(checkpoints.begin, prompt, len(agent.conversation)))
    view = make_view(app)
    runner = TurnRunner(view, app.width(), app.workspace, agent.cancel,
                        ask_line=None if app.term.tty else line_asker(app))
    view.start()
    try:
        with key_reader(app) as keys, app.skill_approvals.during(runner):
            state = await runner.run(agent.run(prompt), keys)
    finally:
        await view.stop()
    fix = close_cancelled(agent.conversation.messages)
    if fix is not None:
        agent.conversation.append(fix)
    if state.usage is not None:
        u = state.usage.usage
        app.context_tokens = (u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
                              + u.output_tokens)
    app.last_blocks = view.finished or app.last_blocks
    await _end_checkpoint(app, state.tools_ran)
    if parts.link.error:
        app.say(render.notice(f"! {parts.link.error}", "yellow"))
        parts.link.error = None
    app.quit = app.quit or state.quit
    app.typed_ahead = (state.typed, state.queued)


async def run_events(app: InteractiveApp, events: AsyncIterator[AgentEvent],
                     cancel: Callable[[], None]) -> TurnState:
    """Show a stream of events that is not an agent turn (a workflow run) like a turn:
    same view, same keys (Esc calls ``cancel``), same approval box."""
    view = make_view(app)
    runner = TurnRunner(view, app.width(), app.workspace, cancel,
                        ask_line=None if app.term.tty else line_asker(app))
    view.start()
    try:
        with key_reader(app) as keys, app.skill_approvals.during(runner):
            state = await runner.run(events, keys)
    finally:
        await view.stop()
    app.last_blocks = view.finished or app.last_blocks
    app.quit = app.quit or state.quit
    app.typed_ahead = (state.typed, state.queued)
    return state


async def _end_checkpoint(app: InteractiveApp, tools_ran: bool) -> None:
    task, app._checkpoint_task = app._checkpoint_task, None
    checkpoints = app.parts.checkpoints if app.parts else None
    if task is None or checkpoints is None:
        return
    try:
        turn = await task
        if tools_ran:
            await asyncio.to_thread(checkpoints.end, turn)
    except Exception as exc:  # noqa: BLE001 - checkpoints are a convenience; say why not
        app.say(render.notice(f"! checkpoint not saved: {exc}", "yellow"))
