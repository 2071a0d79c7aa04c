"""One turn from the app's side: checkpoint, view, keys, the run, and tidying up after."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from aiagent.frontends.tui import render
from aiagent.frontends.tui.terminal import KeyReader
from aiagent.frontends.tui.turn import TurnRunner, TurnState, close_cancelled
from aiagent.frontends.tui.view import PlainView, TurnView

if TYPE_CHECKING:
    from aiagent.contracts.events import AgentEvent
    from aiagent.contracts.messages import ImageBlock
    from aiagent.frontends.tui.app import InteractiveApp
    from aiagent.frontends.tui.screen import Screen
    from aiagent.frontends.tui.terminal import TermInfo


def make_view(screen: Screen) -> Any:

    if screen.term.tty:
        return TurnView(screen.console, screen.term)
    return PlainView(screen.out, screen.console)


@contextlib.contextmanager
def key_reader(term: TermInfo) -> Iterator[Any]:
    """Single keys from the terminal while the turn runs (None in line mode)."""
    if not term.tty:
        yield None
        return

    with KeyReader() as keys:
        yield keys


def line_asker(screen: Screen) -> Any:
    async def ask(prompt: str) -> str | None:
        screen.write(prompt)
        line: str = await asyncio.to_thread(sys.stdin.readline)
        return line.rstrip("\n") if line else None

    return ask


async def run_turn(app: InteractiveApp, prompt: str, images: Sequence[ImageBlock] = ()) -> None:
    agent, parts = app.agent, app.parts
    assert agent is not None and parts is not None
    app.checkpoint.begin(parts.checkpoints, prompt, len(agent.conversation))
    state = await _show(app, agent.run(prompt, images) if images else agent.run(prompt), agent.cancel)
    fix = close_cancelled(agent.conversation.messages)
    if fix is not None:
        agent.conversation.append(fix)
    if state.usage is not None:
        app.meter.measured(state.usage.usage)
    await app.checkpoint.end(state.tools_ran)
    if error := parts.link.take_error():
        app.say(render.notice(f"! {error}", "yellow"))


async def run_events(app: InteractiveApp, events: AsyncIterator[AgentEvent],
                     cancel: Callable[[], None]) -> TurnState:
    """Show a stream of events that is not an agent turn (a workflow run) like a turn:
    same view, same keys (Esc calls ``cancel``), same approval box."""
    return await _show(app, events, cancel)


async def _show(app: InteractiveApp, events: AsyncIterator[AgentEvent],
                cancel: Callable[[], None]) -> TurnState:
    """Run ``events`` through a view with the turn's keys; the tool blocks it showed, its
    typed-ahead text and a quit go to the app's parts."""
    screen = app.screen
    view = make_view(screen)
    runner = TurnRunner(view, screen.width(), app.workspace, cancel,
                        ask_line=None if screen.term.tty else line_asker(screen))
    view.start()
    try:
        with key_reader(screen.term) as keys, app.skill_approvals.during(runner), \
                app.log_notices.during(view):
            state = await runner.run(events, keys)
    finally:
        await view.stop()
    app.tool_output.keep(view.finished)
    app.reading.carry(state.typed, state.queued, quit=state.quit)
    return state
