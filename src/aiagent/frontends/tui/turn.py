"""Running one turn: feed the agent's events to the view, answer approvals with single
keys, and stop the turn on Esc (or Ctrl-C; a second Ctrl-C also quits).

A turn that was stopped part-way leaves the history consistent: tool calls that never
got a result are closed with a result saying the user cancelled them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from aiagent.contracts.events import AgentEvent, ApprovalRequestEvent, ToolCallEvent, UsageEvent
from aiagent.contracts.messages import Message, ToolResultBlock
from aiagent.frontends.tui import approval as approval_ui
from aiagent.frontends.tui import render
from aiagent.frontends.tui.preview import preview_diff

QUIT_WINDOW = 2.0
CANCEL_NOTE = "canceled: the user stopped the turn before this tool call finished"


class View(Protocol):
    question: str
    typed: str
    changed_files: bool

    def handle(self, event: AgentEvent) -> None: ...
    def print(self, renderable: Any) -> None: ...
    def refresh(self) -> None: ...


class Keys(Protocol):
    async def get(self) -> str: ...


@dataclass
class TurnState:
    """What the app learns from a turn."""

    quit: bool = False
    interrupted: bool = False
    tools_ran: bool = False
    usage: UsageEvent | None = None
    last_ctrl_c: float = 0.0
    typed: str = ""  # typed ahead for the next message
    queued: bool = False  # Enter was pressed: send it when the turn ends
    pending: asyncio.Future[str] | None = None
    keymap: dict[str, str] = field(default_factory=dict)


class TurnRunner:
    def __init__(self, view: View, width: int, workspace: Path, cancel: Callable[[], None],
                 ask_line: Callable[[str], Any] | None = None) -> None:
        self.view, self.width, self.workspace, self.cancel = view, width, workspace, cancel
        self.ask_line = ask_line  # plain mode: read an answer line instead of a key
        self.state = TurnState()

    async def run(self, events: AsyncIterator[AgentEvent], keys: Keys | None) -> TurnState:
        watcher = asyncio.ensure_future(self._watch(keys)) if keys is not None else None
        try:
            async for event in events:
                if isinstance(event, ApprovalRequestEvent):
                    await self.approve(event)
                    continue
                if isinstance(event, UsageEvent):
                    self.state.usage = event
                elif isinstance(event, ToolCallEvent):
                    self.state.tools_ran = True
                self.view.handle(event)
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
        return self.state

    # ---- keys while the turn runs ----------------------------------------------------

    async def _watch(self, keys: Keys) -> None:
        while True:
            key = await keys.get()
            pending = self.state.pending
            if pending is not None and not pending.done():
                answer = self.state.keymap.get(key)
                if answer is not None:
                    pending.set_result(answer)
                continue
            self.on_key(key)

    def on_key(self, key: str) -> None:
        if key == "escape":
            self.interrupt()
        elif key == "c-c":
            now = time.monotonic()
            if now - self.state.last_ctrl_c < QUIT_WINDOW:
                self.state.quit = True
            self.state.last_ctrl_c = now
            self.interrupt("  (Ctrl-C again to quit)")
        else:
            self.type_ahead(key)

    def type_ahead(self, key: str) -> None:
        """Keys typed while the turn runs make the next message; Enter queues it."""
        state = self.state
        if key == "backspace":
            state.typed = state.typed[:-1]
        elif key == "enter":
            state.queued = bool(state.typed.strip())
        elif len(key) == 1 and key.isprintable():
            state.typed += key
            state.queued = False
        else:
            return
        self.view.typed = state.typed + (" (queued)" if state.queued else "")
        self.view.refresh()

    def interrupt(self, extra: str = "") -> None:
        if not self.state.interrupted:
            self.view.print(render.notice("■ interrupting…" + extra, "yellow"))
        self.state.interrupted = True
        self.cancel()

    # ---- approvals -------------------------------------------------------------------

    async def approve(self, event: ApprovalRequestEvent) -> str:
        """Show the approval box, wait for one key, answer ``event``; returns the answer
        given to it (Esc answers deny and stops the run)."""
        diff = preview_diff(event.tool, event.args, self.workspace)
        if diff:
            self.view.print(render.diff_text(diff))
            active = getattr(self.view, "active", None)
            if active is not None:
                active.previewed = True
        self.view.print(approval_ui.approval_panel(event, self.width))
        keymap = approval_ui.key_map(event.options)
        if self.ask_line is not None:
            answer = await self._ask_line(event, keymap)
        else:
            future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
            self.state.pending, self.state.keymap = future, keymap
            letters = "/".join(approval_ui.LABELS.get(o, (o[:1], o))[0] for o in event.options)
            self.view.question = f"? choose [{letters}] · esc to deny and stop"
            self.view.refresh()
            try:
                answer = await future
            finally:
                self.state.pending, self.view.question = None, ""
        text, style = approval_ui.answer_text(answer)
        self.view.print(render.notice(text, style))
        given = "deny" if answer == approval_ui.STOP else answer
        event.answer(given)  # type: ignore[arg-type]
        if answer == approval_ui.STOP:
            self.interrupt()
        return given

    async def _ask_line(self, event: ApprovalRequestEvent, keymap: dict[str, str]) -> str:
        assert self.ask_line is not None
        while True:
            line = await self.ask_line("answer> ")
            if line is None:
                return approval_ui.STOP
            choice = keymap.get(line.strip() or "enter")
            if choice is not None:
                return choice
            self.view.print(f"please answer one of: {', '.join(sorted(set(keymap) - {'enter', 'escape', 'c-c'}))}")


def close_cancelled(messages: list[Message]) -> Message | None:
    """The message closing tool calls left without results by a cancelled turn, or None."""
    if not messages or messages[-1].role != "assistant" or not messages[-1].tool_uses:
        return None
    return Message("user", [ToolResultBlock(u.id, CANCEL_NOTE, True)
                            for u in messages[-1].tool_uses])
