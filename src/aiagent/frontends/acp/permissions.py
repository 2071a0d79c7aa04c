"""Approval requests ↔ ``session/request_permission``.

The options are the policy's own answers with the TUI's meaning: "once", "session",
"project" (always in this project), "always" (everywhere) and "deny" (no; like the TUI's
"no" it is remembered for this session). The option id is the answer, so an "always" is
recorded by the policy exactly as when it is given in the terminal. A client that cancels
the request, fails or answers with an unknown id denies.
"""

from __future__ import annotations

from typing import Any

from acp import schema

from aiagent.contracts.events import ApprovalAnswer, ApprovalRequestEvent

OPTIONS: dict[str, tuple[str, str]] = {  # answer -> (label, ACP kind)
    "once": ("Allow once", "allow_once"),
    "session": ("Allow for this session", "allow_always"),
    "project": ("Always allow in this project", "allow_always"),
    "always": ("Always allow", "allow_always"),
    "deny": ("Reject", "reject_once"),
}


def options(event: ApprovalRequestEvent) -> list[schema.PermissionOption]:
    return [schema.PermissionOption(option_id=answer, name=OPTIONS[answer][0],
                                    kind=OPTIONS[answer][1])  # type: ignore[arg-type]
            for answer in event.options if answer in OPTIONS]


def answer_of(response: Any, event: ApprovalRequestEvent) -> ApprovalAnswer:
    outcome = getattr(response, "outcome", None)
    chosen = getattr(outcome, "option_id", None)
    for answer in event.options:
        if chosen == answer:
            return answer
    return "deny"
