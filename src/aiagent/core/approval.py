"""Approval policies: who decides whether a tool call may run.

The loop asks the injected policy before every tool call. A policy answers allow, deny
(with a reason the model reads) or ask; on ask, the loop sends an ``approval_request``
event and waits for the front-end's answer, then tells the policy via :meth:`record`.
Persisted grants, modes and the audit trail build on this interface.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from aiagent.core.events import ApprovalAnswer
from aiagent.tools.base import Tool


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: Literal["allow", "deny", "ask"]
    reason: str = ""

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


class HeadlessPolicy:
    """Headless never waits for a person.

    With a whitelist (``--tools``), exactly those tools run. Without one, read-only tools
    run and the rest are refused with a message telling how to allow them.
    """

    def __init__(self, allowed: Collection[str] | None = None) -> None:
        self.allowed = None if allowed is None else frozenset(allowed)

    async def decide(self, tool: Tool, args: dict[str, Any]) -> Decision:
        if self.allowed is not None:
            if tool.name in self.allowed:
                return ALLOW
            return Decision.deny(
                f"tool {tool.name} is not allowed in this run (allowed: "
                f"{', '.join(sorted(self.allowed)) or 'none'}); do the task without it"
            )
        if getattr(tool, "read_only", False):
            return ALLOW
        return Decision.deny(
            f"tool {tool.name} changes files or runs commands and needs approval, which a "
            f"headless run cannot ask for; the user can allow it with --tools"
        )

    def record(self, tool: Tool, args: dict[str, Any], answer: ApprovalAnswer) -> None:
        return None
