"""Approval policies: who decides whether a tool call may run.

The loop asks the injected policy before every tool call. A policy answers allow, deny
(with a reason the model reads) or ask; on ask, the loop sends an ``approval_request``
event and waits for the front-end's answer, then tells the policy via :meth:`record`.
The real policy (modes, saved grants, headless refusals) is
:class:`aiagent.agent.permissions.policy.PermissionPolicy`; :class:`AllowAll` is for tests and
trusted automation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from aiagent.contracts.events import ApprovalAnswer
from aiagent.contracts.tools import Tool


@dataclass(frozen=True, slots=True)
class Decision:
    """``sandbox``: the call runs without a person approving it, so a command it starts
    must run in the sandbox where one is available (the loop passes it to the tool)."""

    verdict: Literal["allow", "deny", "ask"]
    reason: str = ""
    sandbox: bool = False

    @classmethod
    def allow(cls) -> Decision:
        return cls("allow")

    @classmethod
    def deny(cls, reason: str) -> Decision:
        return cls("deny", reason)


ALLOW = Decision("allow")
ASK = Decision("ask")


class ApprovalPolicy(Protocol):
    async def decide(self, tool: Tool, args: dict[str, Any]) -> Decision: ...

    def record(self, tool: Tool, args: dict[str, Any], answer: ApprovalAnswer) -> None: ...


class AllowAll:
    """Every call runs (tests, and trusted automation)."""

    async def decide(self, tool: Tool, args: dict[str, Any]) -> Decision:
        return ALLOW

    def record(self, tool: Tool, args: dict[str, Any], answer: ApprovalAnswer) -> None:
        return None
