"""User hooks at the agent's events, through the loop's hook points (contracts/hooks.py).

* SessionStart: before the first request of an agent's conversation (``source`` is
  ``startup``, or ``resume`` when the session already had messages); its context joins the
  first prompt.
* UserPromptSubmit: each prompt, before the request; its context is appended to the prompt
  the model reads; a block (exit 2, ``decision: "block"``) ends the run, the prompt unsent.
* PreToolUse: before a tool call is checked and approved; a deny (exit 2,
  ``permissionDecision: "deny"``, ``decision: "block"``) cancels the call and its reason
  reaches the model; "ask" makes the call need a person; "allow" see :class:`HookApproval`.
* PostToolUse: after the call, with its result; a block or ``additionalContext`` is
  appended to the result the model reads (the tool has run: nothing is undone).
* Stop: when the model answered without calling a tool; a block (exit 2, ``decision:
  "block"``) makes it go on with the reason, at most ``max_stop_continuations`` times.
* SubagentStop: the same when a ``task`` child answered without calling a tool (matched
  on the child's profile name); a block makes that child go on (:meth:`UserHooks.for_child`).
  A child's tool calls fire PreToolUse and PostToolUse; Stop, UserPromptSubmit and
  SessionStart are the main agent's only.

Hooks of one event run one after the other, in configuration order (user's, project's,
then Claude's files). Anything a hook does wrong is reported once as a warning and the
run goes on; only a deny, a block or ``"continue": false`` changes its course. Each firing
is logged at DEBUG (``--debug``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aiagent.agent.hooks import reply as replies
from aiagent.agent.hooks.config import TOOL_EVENTS, HookSet, HookSpec, aliases_of
from aiagent.agent.hooks.reply import Reply
from aiagent.agent.hooks.transcript import Transcript
from aiagent.contracts.approval import Decision
from aiagent.contracts.hooks import GoOn, Hooks, HookVerdict, ToolCall
from aiagent.contracts.messages import Message, TextBlock
from aiagent.contracts.tools import ToolResult

log = logging.getLogger("aiagent.agent.hooks")
EXIT_HOOK_STOPPED = 1
BLOCKED_PROMPT = "[this prompt was blocked by a UserPromptSubmit hook and not sent]"
STOP_FEEDBACK = "Stop hook feedback (a hook asks you to go on before you stop):"
SUBAGENT_STOP_FEEDBACK = "SubagentStop hook feedback (a hook asks you to go on before you stop):"
Reporter = Callable[[str], None]


def warn(message: str) -> None:
    log.warning("aiagent: hooks: %s", message)


@dataclasses.dataclass(slots=True)
class RunFacts:
    """What every payload carries, and where the commands run."""

    session_id: str
    project: Path
    cwd: Path
    env: Mapping[str, str]
    model: str = ""
    permission_mode: str = "default"


class UserHooks:
    """The configured hooks of one agent, fired at its events."""

    def __init__(self, hooks: HookSet, facts: RunFacts, report: Reporter = warn) -> None:
        self.hooks, self.facts, self.report = hooks, facts, report
        self.env = {**facts.env, "AIAGENT_PROJECT_DIR": str(facts.project),
                    "CLAUDE_PROJECT_DIR": str(facts.project)}
        self.conversation: Callable[[], list[Message]] = list
        self.policy: Any = None  # the approval policy: its mode now is the payload's permission_mode
        self.saved: Callable[[Message], None] | None = None  # stores a prompt changed here again
        self.transcript: Transcript | None = None  # the conversation as transcript_path's file
        #: id(args) -> (tool, args, allow | ask) of each call between its PreToolUse and its
        #: approval (several at once: task children run side by side); args kept: ids unique
        self._marks: dict[int, tuple[str, Any, str]] = {}
        self._denied: set[str] = set()  # ids of calls a hook denied (no PostToolUse)
        self._went_on = 0  # times a Stop hook made the model go on since the last prompt

    # ---- firing ------------------------------------------------------------------------

    async def fire(self, event: str, extra: Mapping[str, Any], subject: str | None = None,
                   *, first_deny: bool = False) -> list[Reply]:
        """Run the hooks of ``event`` that match ``subject``; report their problems."""
        out: list[Reply] = []
        for spec in self.hooks.for_event(event, subject):
            log.debug("hook fires: %s%s from %s: %s", event, f" ({subject})" if subject else "",
                      spec.where, spec.command)
            answer = await replies.run(spec, self.payload(spec, extra), cwd=self.facts.project,
                                       env=self.env, max_bytes=self.hooks.max_output_bytes)
            log.debug("hook done: %s from %s: exit %s in %.2fs", event, spec.where,
                      answer.exit_code, answer.duration)
            for problem in answer.problems:
                self.report(f"{event} hook {spec.where} ({_brief(spec.command)}): {problem}")
            if answer.system_message:
                self.report(f"{event} hook {spec.where}: {answer.system_message}")
            out.append(answer)
            if first_deny and (answer.denies or answer.stop):
                break
        return out

    def payload(self, spec: HookSpec, extra: Mapping[str, Any]) -> dict[str, Any]:
        """Claude Code's payload: the common fields, then the event's own."""
        path = ""
        if self.transcript is not None:  # (what a hook reads there is the conversation so far)
            try:
                path = self.transcript.update(self.conversation())
            except OSError as exc:
                self.report(f"transcript {self.transcript.path}: {exc.strerror or exc}; "
                            "hooks get an empty transcript_path")
                self.transcript = None
        data: dict[str, Any] = {
            "session_id": self.facts.session_id,
            "transcript_path": path,
            "cwd": str(self.facts.cwd),
            "permission_mode": str(getattr(self.policy, "mode", self.facts.permission_mode)),
            "hook_event_name": spec.event,
            **extra,
        }
        tool = data.get("tool_name")
        if spec.event in TOOL_EVENTS and isinstance(tool, str):
            data["aiagent_tool_name"] = tool
            names = aliases_of(tool)
            if spec.claude and names:
                data["tool_name"] = names[0]
        return data

    # ---- the events ----------------------------------------------------------------------

    async def session_start(self, messages: list[Message]) -> None:
        source = "resume" if len(messages) > 1 else "startup"
        if self.hooks.has("SessionStart"):
            got = await self.fire("SessionStart", {"source": source, "model": self.facts.model},
                                  subject=source)
            self._stop_if_asked(got, "SessionStart")
            self._add_context(got)
        await self.prompt_submit(messages[-1].text if messages else "")

    async def prompt_submit(self, text: str) -> None:
        self._went_on = 0
        if not self.hooks.has("UserPromptSubmit"):
            return
        got = await self.fire("UserPromptSubmit", {"prompt": text}, first_deny=True)
        blocked = next((r for r in got if r.block), None)
        if blocked is not None:
            self._blank_prompt()
            self._end(f"a UserPromptSubmit hook ({blocked.spec.where}) blocked the prompt: "
                      f"{blocked.reason}", "hook_blocked")
        self._stop_if_asked(got, "UserPromptSubmit")
        self._add_context(got)

    async def before_tool(self, call: ToolCall) -> HookVerdict | None:
        self._marks.pop(id(call.args), None)
        if not self.hooks.has("PreToolUse"):
            return None
        got = await self.fire("PreToolUse", self._tool_fields(call), subject=call.name,
                              first_deny=True)
        self._stop_if_asked(got, "PreToolUse")
        denied = next((r for r in got if r.denies), None)
        if denied is not None:
            self._denied.add(call.id)
            reason = denied.reason or "(no reason given)"
            return HookVerdict(cancel=True, reason=f"a PreToolUse hook denied it: {reason}")
        wanted = {r.permission for r in got}
        permission = "ask" if "ask" in wanted else "allow" if "allow" in wanted else None
        if permission is not None:
            self._marks[id(call.args)] = (call.name, call.args, permission)
        return None

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult | None:
        self._marks.pop(id(call.args), None)  # a call that never reached its approval
        if call.id in self._denied or not self.hooks.has("PostToolUse"):
            self._denied.discard(call.id)
            return None
        response = {"content": result.content, "is_error": result.is_error}
        got = await self.fire("PostToolUse", {**self._tool_fields(call), "tool_response": response},
                              subject=call.name)
        self._stop_if_asked(got, "PostToolUse")
        notes = [f"[PostToolUse hook: {r.reason}]" for r in got if r.block]
        notes += [f"[PostToolUse hook context: {r.context}]" for r in got if r.context]
        if not notes:
            return None
        return dataclasses.replace(result, content="\n\n".join([result.content, *notes]))

    async def stop(self, text: str) -> None:
        """Fire the Stop hooks; a "block" raises :class:`GoOn` (the model goes on with the
        reason), at most ``max_stop_continuations`` times after one prompt."""
        if not self.hooks.has("Stop"):
            return
        got = await self.fire("Stop", {"stop_hook_active": self._went_on > 0,
                                       "last_assistant_message": text})
        reason = self._continuation(got, "Stop", self._went_on, "the model")
        if reason is not None:
            self._went_on += 1
            raise GoOn(f"{STOP_FEEDBACK}\n{reason}")

    def for_child(self, label: str, agent_type: str) -> Hooks:
        """The hook point of a ``task`` child's end: SubagentStop (matched on ``agent_type``,
        the child's profile); a "block" makes that child go on with the reason, at most
        ``max_stop_continuations`` times. Its tool calls fire the run's tool hooks (the
        set-up gives it those); Stop and UserPromptSubmit are the main agent's only."""
        went_on = 0

        async def answered(text: str) -> str | None:
            nonlocal went_on
            if not self.hooks.for_event("SubagentStop", agent_type):
                return None
            got = await self.fire("SubagentStop", {
                "stop_hook_active": went_on > 0, "last_assistant_message": text,
                "agent_id": label, "agent_type": agent_type, "agent_transcript_path": ""},
                subject=agent_type)
            reason = self._continuation(got, "SubagentStop", went_on, f"subagent {label}")
            if reason is None:
                return None
            went_on += 1
            raise GoOn(f"{SUBAGENT_STOP_FEEDBACK}\n{reason}")

        return Hooks(on_after_response=[answered])

    def _continuation(self, got: list[Reply], event: str, went_on: int, who: str) -> str | None:
        """The reason a Stop-like hook's "block" gives to go on, or None when it did not
        block, said ``"continue": false`` (which wins: it stops), or the bound is reached."""
        blocking = [r for r in got if r.block]
        if not blocking or any(r.stop for r in got):
            return None
        where, reason = blocking[0].spec.where, "\n".join(r.reason for r in blocking)
        bound = self.hooks.max_stop_continuations
        if went_on >= bound:
            self.report(f"{event} hook {where} asked {who} to go on again ({_brief(reason)}); "
                        f"not honoured: it already went on {went_on} time(s) "
                        f"([hooks] max_stop_continuations = {bound})")
            return None
        self.report(f"{event} hook {where} makes {who} go on ({went_on + 1}/{bound}): "
                    f"{_brief(reason, 200)}")
        return reason

    def take_mark(self, tool: str, args: Any) -> str | None:
        """The PreToolUse permission ("allow", "ask") for this very call, used once."""
        mark = self._marks.pop(id(args), None)
        if mark is not None and mark[0] == tool and mark[1] is args:
            return mark[2]
        return None

    # ---- helpers ------------------------------------------------------------------------

    def _tool_fields(self, call: ToolCall) -> dict[str, Any]:
        # a copy, by value: nothing a hook does reaches the arguments the tool gets
        tool_input = json.loads(json.dumps(call.args, default=str))
        return {"tool_name": call.name, "tool_input": tool_input, "tool_use_id": call.id}

    def _add_context(self, got: list[Reply]) -> None:
        texts = [r.context for r in got if r.context]
        messages = self.conversation()
        if not texts or not messages or messages[-1].role != "user":
            return
        block = "\n\n".join(f"<hook-context>\n{t}\n</hook-context>" for t in texts)
        messages[-1].content.append(TextBlock("\n\n" + block))
        self._save(messages[-1])

    def _blank_prompt(self) -> None:
        messages = self.conversation()
        if messages and messages[-1].role == "user":
            messages[-1].content[:] = [TextBlock(BLOCKED_PROMPT)]
            self._save(messages[-1])

    def _save(self, prompt: Message) -> None:
        """The session keeps the prompt as the model reads it (context added, or blanked)."""
        if self.saved is not None:
            self.saved(prompt)

    def _stop_if_asked(self, got: list[Reply], event: str) -> None:
        stopping = next((r for r in got if r.stop), None)
        if stopping is not None:
            self._end(f"a {event} hook ({stopping.spec.where}) stopped the run: "
                      f"{stopping.stop_reason}", "hook_stopped")

    def _end(self, message: str, reason: str) -> None:
        from aiagent.agent.core.loop import RunEnded

        self.report(message)
        raise RunEnded(reason, EXIT_HOOK_STOPPED, message)

    # ---- the loop's hook points -------------------------------------------------------------

    def as_hooks(self) -> Hooks:
        async def start(messages: list[Message]) -> None:
            await self.session_start(messages)

        async def after(call: ToolCall, result: ToolResult) -> ToolResult | None:
            return await self.after_tool(call, result)

        async def answered(text: str) -> str | None:
            await self.stop(text)
            return None

        return Hooks(on_conversation_start=[start], on_user_turn=[self.prompt_submit],
                     on_before_tool_call=[self.before_tool], on_after_tool_result=[after],
                     on_after_response=[answered])


class HookApproval:
    """The approval policy, with a PreToolUse hook's "ask" and (when allowed) "allow".

    * "ask" turns an allowed call into one a person must approve (a headless run, which
      cannot ask, refuses it): a hook can only narrow.
    * "allow" answers the approval prompt for that one call, and only with
      ``[hooks] allow_skips_prompt = true``, only where the policy would have asked a person
      (never over a refusal, a deny rule, a protected path or a headless run's refusal);
      a shell command so allowed runs in the sandbox, as any call no person approved.
    """

    def __init__(self, inner: Any, hooks: UserHooks) -> None:
        self.inner, self.hooks = inner, hooks

    async def decide(self, tool: Any, args: dict[str, Any]) -> Decision:
        decision: Decision = await self.inner.decide(tool, args)
        mark = self.hooks.take_mark(tool.name, args)
        if mark == "ask" and decision.verdict == "allow":
            if not getattr(self.inner, "interactive", False):
                return Decision.deny("a PreToolUse hook asked for a person's approval, and this "
                                     "run cannot ask; it was not run")
            return Decision("ask", "a PreToolUse hook asked for approval")
        if mark == "allow" and decision.verdict == "ask" and self._may_skip(tool, args):
            log.debug("a PreToolUse hook allowed %s without the prompt", tool.name)
            return Decision("allow", "allowed by a PreToolUse hook", sandbox=True)
        return decision

    def _may_skip(self, tool: Any, args: dict[str, Any]) -> bool:
        if not self.hooks.hooks.allow_skips_prompt:
            return False
        subject = getattr(self.inner, "subject", None)
        return subject is None or not subject(tool, args).protected

    def record(self, tool: Any, args: dict[str, Any], answer: Any) -> None:
        self.inner.record(tool, args, answer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _brief(command: str, limit: int = 60) -> str:
    line = " ".join(command.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def warn_unknown_names(hooks: HookSet, tools: list[str], report: Reporter) -> None:
    """Say so when a tool matcher that is a plain list of names (``Bash|Edit``) names a
    tool aiagent does not have: such a hook would never fire."""
    from aiagent.agent.hooks.config import claude_names

    known = set(tools) | set(claude_names())
    for spec in hooks.active:
        if spec.event not in TOOL_EVENTS or spec.pattern is None:
            continue
        names = spec.matcher.split("|")
        if not all(n.replace("_", "").isalnum() for n in names):
            continue  # a real regular expression: cannot tell
        unknown = [n for n in names if n not in known and not n.startswith("mcp")]
        if unknown:
            report(f"{spec.where}: matcher {spec.matcher!r} names no known tool "
                   f"({', '.join(unknown)}); that part never matches")
