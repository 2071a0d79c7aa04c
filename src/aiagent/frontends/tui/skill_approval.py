"""A skill's first-use permission request (spec §4.5), answered in the UI with one key.

The skill runtime asks through its approver (the one given to ``runtime.ask_through``,
or to ``activate``): :class:`SkillApprovals` is that approver for the interactive UI. While a
turn or a workflow runs, the box goes through that run's :class:`TurnRunner` (so keys
reach it and the live area shows the question); between turns (``/skill NAME``) it is
shown on its own. The runtime records the answer: once (this session), always, or deny.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from aiagent.agent.skills.approvals import skill_request
from aiagent.frontends.tui import approval, render

if TYPE_CHECKING:
    from aiagent.agent.skills.runtime import SkillRuntime
    from aiagent.contracts.events import ApprovalRequestEvent
    from aiagent.frontends.tui.screen import Screen
    from aiagent.frontends.tui.turn import TurnRunner


class SkillApprovals:
    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.runner: TurnRunner | None = None

    async def __call__(self, skill: str, missing: list[str]) -> str:
        """The runtime's ``Approver``: returns once, always or deny."""

        event = skill_request(skill, missing)
        if self.runner is not None:
            return await self.runner.approve(event)
        return await ask_outside_turn(self.screen, event)

    @contextlib.contextmanager
    def during(self, runner: TurnRunner) -> Iterator[None]:
        """Route requests to ``runner`` while it runs."""
        previous, self.runner = self.runner, runner
        try:
            yield
        finally:
            self.runner = previous

    def report(self, message: str) -> None:
        """The runtime's reports (a skill that failed to load or activate): one line."""

        line = render.notice(f"! skills: {message}", "yellow")
        if self.runner is not None:
            self.runner.view.print(line)
        else:
            self.screen.say(line)


def connect(runtime: SkillRuntime | None, approvals: SkillApprovals) -> None:
    """Make the agent's skill runtime (if it has one) ask and report through the UI."""
    if runtime is not None:
        runtime.ask_through(approvals, approvals.report)


async def ask_outside_turn(screen: Screen, event: ApprovalRequestEvent) -> str:
    """Show the approval box between turns and wait for one key; returns the answer
    (Esc, Ctrl-C or end of input deny)."""
    from aiagent.frontends.tui.running import key_reader, line_asker

    screen.say(approval.approval_panel(event, screen.width()))
    keymap = approval.key_map(event.options)
    ask = line_asker(screen)
    with key_reader(screen.term) as keys:
        answer = await _one_answer(keys, ask, keymap)
    answer = "deny" if answer == approval.STOP else answer
    text, style = approval.answer_text(answer)
    screen.say(render.notice(text, style))
    event.answer(answer)  # type: ignore[arg-type]
    return answer


async def _one_answer(keys: Any, ask: Any, keymap: dict[str, str]) -> str:

    while True:
        if keys is None:
            line = await ask("answer> ")
            if line is None:
                return approval.STOP
            key = line.strip() or "enter"
        else:
            key = await keys.get()
        if key in keymap:
            return keymap[key]
