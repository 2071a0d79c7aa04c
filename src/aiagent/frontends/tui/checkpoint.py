"""The workspace snapshot of a turn (:class:`aiagent.agent.core.checkpoints.Checkpoints`),
taken in a thread while the turn starts: tools wait for it (up to
:data:`CHECKPOINT_WAIT`), and it is saved when the turn ends if a tool ran."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiagent.frontends.tui import render

if TYPE_CHECKING:
    from aiagent.agent.core.checkpoints import Checkpoints

CHECKPOINT_WAIT = 10.0  # seconds a tool waits for the turn's workspace snapshot


class CheckpointTracker:
    def __init__(self, say: Callable[[Any], None]) -> None:
        self.say = say
        self._task: asyncio.Future[Any] | None = None
        self._checkpoints: Checkpoints | None = None

    def begin(self, checkpoints: Checkpoints | None, prompt: str, history_len: int) -> None:
        """Start this turn's snapshot (none without checkpoints: no git, or a folder too
        broad to snapshot)."""
        self._checkpoints = checkpoints
        if checkpoints is not None:
            self._task = asyncio.ensure_future(
                asyncio.to_thread(checkpoints.begin, prompt, history_len))

    async def gate(self, call: Any) -> None:
        """The agent's before-tool hook: tools wait until the snapshot is taken."""
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), CHECKPOINT_WAIT)
            except TimeoutError:
                self.say(render.notice("! the checkpoint is slow (a big folder?); tools run "
                                       "without waiting for it", "yellow"))
            except Exception:  # noqa: BLE001,S110 - reported when the turn ends
                pass
        return None

    async def end(self, tools_ran: bool) -> None:
        """Save the turn's checkpoint when a tool ran; a failure is said, not raised."""
        task, self._task = self._task, None
        checkpoints, self._checkpoints = self._checkpoints, None
        if task is None or checkpoints is None:
            return
        try:
            turn = await task
            if tools_ran:
                await asyncio.to_thread(checkpoints.end, turn)
        except Exception as exc:  # noqa: BLE001 - checkpoints are a convenience; say why not
            self.say(render.notice(f"! checkpoint not saved: {exc}", "yellow"))
