"""A PreToolUse hook's "allow" and "ask" against the approval policy: "ask" only narrows;
"allow" answers a person's prompt for that one call, only when the config says so, never
over a refusal or a protected path. And the reading of a hook's answer."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aiagent.agent.hooks.config import HookSet, HookSpec
from aiagent.agent.hooks.engine import HookApproval, RunFacts, UserHooks
from aiagent.agent.hooks.reply import Reply, read
from aiagent.contracts.approval import Decision
from aiagent.contracts.hooks import ToolCall


@dataclass
class Tool:
    name: str = "write_file"


@dataclass
class Subject:
    protected: str = ""


class Policy:
    def __init__(self, verdict: str, *, interactive: bool = True, protected: str = "") -> None:
        self.verdict, self.interactive, self.protected = verdict, interactive, protected
        self.mode = "prompt"

    async def decide(self, tool: Any, args: dict[str, Any]) -> Decision:
        return Decision(self.verdict)  # type: ignore[arg-type]

    def subject(self, tool: Any, args: dict[str, Any]) -> Subject:
        return Subject(self.protected)

    def record(self, tool: Any, args: dict[str, Any], answer: Any) -> None:
        return None


def answering(permission: str, tmp_path: Path, *, skips: bool) -> UserHooks:
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": permission}}
    spec = HookSpec("PreToolUse", "", f"echo {json.dumps(json.dumps(answer))}", 10.0, "user",
                    "config.toml", "[[hooks.PreToolUse]] #1")
    reports: list[str] = []
    hooks = UserHooks(HookSet([spec], allow_skips_prompt=skips),
                      RunFacts("s1", tmp_path, tmp_path, {"PATH": "/usr/bin:/bin"}), reports.append)
    return hooks


async def verdict(hooks: UserHooks, policy: Policy, args: dict[str, Any] | None = None) -> Decision:
    call = ToolCall("c1", "write_file", args if args is not None else {"file_path": "a.txt"})
    assert await hooks.before_tool(call) is None
    return await HookApproval(policy, hooks).decide(Tool(), call.args)


@pytest.mark.parametrize(("permission", "skips", "policy", "expected"), [
    ("allow", False, Policy("ask"), "ask"),  # not unless the config says so
    ("allow", True, Policy("ask"), "allow"),
    ("allow", True, Policy("deny"), "deny"),  # never over a refusal
    ("allow", True, Policy("ask", protected=".git"), "ask"),  # nor a protected path
    ("ask", False, Policy("allow"), "ask"),  # narrowing always applies
    ("ask", False, Policy("allow", interactive=False), "deny"),  # a headless run cannot ask
    ("deny", False, Policy("allow"), "allow"),  # a deny is a cancel before the policy: see e2e
])
def test_hook_permission_against_the_policy(tmp_path: Path, permission: str, skips: bool,
                                            policy: Policy, expected: str) -> None:
    hooks = answering(permission, tmp_path, skips=skips)
    if permission == "deny":
        call = ToolCall("c1", "write_file", {})
        cancelled = asyncio.run(hooks.before_tool(call))
        assert cancelled is not None and cancelled.cancel
        return
    decision = asyncio.run(verdict(hooks, policy))
    assert decision.verdict == expected
    if expected == "allow" and permission == "allow":
        assert decision.sandbox  # allowed with no person approving: sandboxed


def test_an_allow_is_for_that_one_call(tmp_path: Path) -> None:
    hooks = answering("allow", tmp_path, skips=True)

    async def go() -> tuple[str, str]:
        first = await verdict(hooks, Policy("ask"))
        again = await HookApproval(Policy("ask"), hooks).decide(Tool(), {"file_path": "a.txt"})
        return first.verdict, again.verdict

    assert asyncio.run(go()) == ("allow", "ask")


def spec(event: str = "PreToolUse") -> HookSpec:
    return HookSpec(event, "", "true", 1.0, "user", "f", "k")


@pytest.mark.parametrize(("code", "stdout", "stderr", "block", "reason"), [
    (2, '{"decision": "approve"}', "stop it\n", True, "stop it"),
    (0, '{"decision": "block", "reason": "nope"}', "", True, "nope"),
    (1, "", "boom", False, ""),
    (0, "plain text", "", False, ""),
])
def test_reading_an_answer(code: int, stdout: str, stderr: str, block: bool, reason: str) -> None:
    reply = Reply(spec(), code)
    read(reply, stdout, stderr)
    assert (reply.block, reply.reason) == (block, reason)
    assert bool(reply.problems) == (code not in (0, 2))


def test_context_and_continue() -> None:
    reply = Reply(spec("UserPromptSubmit"), 0)
    read(reply, json.dumps({"continue": False, "stopReason": "enough", "systemMessage": "hi",
                            "hookSpecificOutput": {"additionalContext": "ctx"}}), "")
    assert (reply.stop, reply.stop_reason, reply.system_message, reply.context) == (True, "enough", "hi", "ctx")
    plain = Reply(spec("UserPromptSubmit"), 0)
    read(plain, "just text\n", "")
    assert plain.context == "just text"
    ignored = Reply(spec("PostToolUse"), 0)
    read(ignored, "just text\n", "")
    assert ignored.context == ""


def test_an_unknown_permission_is_reported() -> None:
    reply = Reply(spec(), 0)
    read(reply, json.dumps({"hookSpecificOutput": {"permissionDecision": "maybe"}}), "")
    assert reply.permission is None and "is not one of allow, deny, ask" in reply.problems[0]


def test_an_ask_holds_when_calls_of_several_children_interleave(tmp_path: Path) -> None:
    """Task children run side by side: a second call's PreToolUse between the first call's
    hook and its approval does not lose the first call's "ask"."""
    hooks = answering("ask", tmp_path, skips=False)
    first = ToolCall("c1", "write_file", {"file_path": "a.txt"})
    second = ToolCall("c1", "write_file", {"file_path": "b.txt"})

    async def go() -> tuple[str, str]:
        assert await hooks.before_tool(first) is None
        assert await hooks.before_tool(second) is None
        approval = HookApproval(Policy("allow", interactive=False), hooks)
        one = await approval.decide(Tool(), first.args)
        two = await approval.decide(Tool(), second.args)
        return one.verdict, two.verdict

    assert asyncio.run(go()) == ("deny", "deny")
    assert hooks._marks == {}  # each used once
