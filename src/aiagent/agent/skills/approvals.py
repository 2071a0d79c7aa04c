"""Asking a person for a skill's permissions, through the front-end's event stream."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from aiagent.agent.skills.permissions import Approver, deny_all, describe
from aiagent.contracts.events import ApprovalAnswer, ApprovalRequestEvent
from aiagent.contracts.tools import ToolContext

SKILL_OPTIONS: tuple[ApprovalAnswer, ...] = ("once", "always", "deny")  # spec §4.5: Allow once, Allow always, Deny


def skill_request(skill: str, missing: list[str],
                  future: asyncio.Future[Any] | None = None) -> ApprovalRequestEvent:
    """The ``approval_request`` event asking for a skill's permissions: tool ``skill:NAME``,
    args ``{"skill": NAME, "permissions": [...]}``, answers once / always / deny."""
    what = f"skill {skill} wants: " + "; ".join(f"{p} — {describe(p)}" for p in missing)
    return ApprovalRequestEvent(uuid.uuid4().hex[:12], f"skill:{skill}", what,
                                {"skill": skill, "permissions": list(missing)},
                                options=SKILL_OPTIONS, future=future)


def event_approver(ctx: ToolContext) -> Approver:
    """An approver that sends an ``approval_request`` event and waits for the answer
    (headless answers deny at once)."""

    async def ask(skill: str, missing: list[str]) -> str:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        ctx.emit(skill_request(skill, missing, future))
        try:
            return str(await asyncio.wait_for(future, 3600))
        except TimeoutError:
            return "deny"

    return ask


def terminal_approver(prompt: Any = None) -> Approver:
    """An approver asking on the terminal (``aiagent workflow run``); deny without one."""
    import sys

    if not sys.stdin.isatty():
        return deny_all

    async def ask(skill: str, missing: list[str]) -> str:
        import click

        click.echo(f"Skill {skill!r} wants to activate. Required permissions:", err=True)
        for perm in missing:
            click.echo(f"  {perm:<14} {describe(perm)}", err=True)
        choice = await asyncio.to_thread(
            click.prompt, "Allow [o]nce, [a]lways, [d]eny", default="d", err=True, show_default=True)
        return {"o": "once", "a": "always"}.get(str(choice).strip().lower()[:1], "deny")

    return ask
