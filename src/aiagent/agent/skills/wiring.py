"""Connecting a :class:`SkillRuntime` to an :class:`~aiagent.agent.core.loop.Agent` through the
agent's own operations (``add_tool``, ``remove_tool``, ``use_prompt_fragments``,
``use_skills``): its tools join the agent's as skills activate, the system prompt is rebuilt
with the skills' fragments, and the core's hook points call the skills' hooks. The agent is
built, and this called, by :mod:`aiagent.app`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from aiagent.agent.skills.runtime import SkillRuntime
from aiagent.agent.skills.tools import ActivateSkillTool, RunWorkflowTool
from aiagent.agent.skills.triggers import ProjectFacts, scan_project
from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.hooks import Hooks, HookVerdict, ToolCall
from aiagent.contracts.messages import Message
from aiagent.contracts.prompt import PromptFragment
from aiagent.contracts.providers import CompletionRequest, TextDelta
from aiagent.contracts.tools import Tool, ToolResult


class Agent(Protocol):
    """The operations of :class:`aiagent.agent.core.loop.Agent` that wiring uses (the core sits
    above skills, so skills name what they need instead of importing it)."""

    tools: ToolRegistry

    def add_tool(self, tool: Tool, *, offer: bool = True) -> None: ...
    def remove_tool(self, name: str) -> None: ...
    def use_prompt_fragments(self, fragments: Sequence[PromptFragment]) -> None: ...
    def use_skills(self, runtime: Any, hooks: Hooks) -> None: ...


def provider_llm(provider: Any, model: str, max_tokens: int = 4096) -> Callable[[str, Mapping[str, Any]], Any]:
    """``llm_complete`` for skills, on the agent's own provider."""

    async def complete(prompt: str, opts: Mapping[str, Any]) -> str:

        request = CompletionRequest(
            model=str(opts.get("model") or model), system=str(opts.get("system") or ""),
            messages=[Message.user(prompt)], tools=[], max_tokens=int(opts.get("max_tokens") or max_tokens),
        )
        parts: list[str] = []
        async for event in provider.stream(request):
            if isinstance(event, TextDelta):
                parts.append(event.text)
        return "".join(parts)

    return complete


def attach(runtime: SkillRuntime, agent: Agent, whitelist: list[str] | None = None) -> None:
    """Wire ``runtime`` into ``agent`` through the agent's own operations: skill tools
    join (and leave) its tools, its system prompt is rebuilt with the skills' fragments, and
    its hook points call the skills' hooks. With a ``--tools`` ``whitelist`` only what it
    names is offered: no skill tools, no index."""

    def offered(name: str) -> bool:
        return whitelist is None or name in whitelist

    def tools_changed(added: list[str], removed: list[str]) -> None:
        for name in removed:
            agent.remove_tool(name)
        for name in added:
            tool = runtime.tool_objects.get(name)
            if tool is not None:
                agent.add_tool(tool, offer=offered(name))
        if runtime.workflows():
            existing = agent.tools.get("run_workflow") if "run_workflow" in agent.tools else None
            if isinstance(existing, RunWorkflowTool):
                existing.refresh()
            else:
                agent.add_tool(RunWorkflowTool(runtime), offer=offered("run_workflow"))

    def prompt_changed() -> None:
        agent.use_prompt_fragments(runtime.prompt_fragments())

    runtime.changes.listen(tools_changed, prompt_changed)
    if runtime.available_names() and offered("activate_skill"):
        agent.add_tool(ActivateSkillTool(runtime))
    else:
        runtime.prompt.hide_index()
    prompt_changed()
    agent.use_skills(runtime, core_hooks(runtime))


def _conversation(messages: list[Message]) -> list[dict[str, str]]:
    return [{"role": m.role, "text": m.text} for m in messages]


def core_hooks(runtime: SkillRuntime) -> Hooks:
    """The core's hook points, answered by the skills' hooks."""
    h = SkillHooks(runtime)
    return Hooks([h.conversation_start], [h.before_tool], [h.after_tool], [h.after_response],
                 [h.user_turn], [runtime.close])


class SkillHooks:
    """Translates between the core's hook calls and the skills' hook events."""

    def __init__(self, runtime: SkillRuntime) -> None:
        self.runtime = runtime

    async def conversation_start(self, messages: list[Message]) -> None:
        rt = self.runtime
        try:
            if not rt.triggers.started:
                await rt.start(await asyncio.to_thread(_facts, rt))
            last = next((m.text for m in reversed(messages) if m.role == "user"), "")
            await rt.user_turn(last)
            await rt.fire("on_conversation_start", {"conversation": _conversation(messages)})
            await rt.fire("on_before_prompt_build", {})
            rt.changes.prompt()
        except Exception as exc:  # noqa: BLE001 - skills must never end the run
            rt.report(f"skills: start-up failed: {type(exc).__name__}: {exc}")

    async def user_turn(self, text: str) -> None:
        try:
            await self.runtime.user_turn(text)  # keyword triggers of a later turn
        except Exception as exc:  # noqa: BLE001 - skills must never end the run
            self.runtime.report(f"keyword triggers failed: {exc}")

    async def before_tool(self, call: ToolCall) -> HookVerdict | None:
        if not self.runtime.bus.has("on_before_tool_call"):
            return None
        event = {"tool_call": _call(call)}
        for skill, result in await self.runtime.fire("on_before_tool_call", event):
            if result.tool_args is not None:
                call.args.clear()
                call.args.update(result.tool_args)
            if result.cancel:
                return HookVerdict(True, result.reason or f"cancelled by skill {skill}")
        return None

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult | None:
        if not self.runtime.bus.has("on_after_tool_result"):
            return None
        event = {"tool_call": _call(call),
                 "tool_result": {"content": result.content, "is_error": result.is_error}}
        replaced = None
        for _skill, r in await self.runtime.fire("on_after_tool_result", event):
            if r.tool_result is not None:
                content, is_error = r.tool_result.get("content", ""), r.tool_result.get("is_error", False)
                replaced = ToolResult(str(content), bool(is_error))
        return replaced

    async def after_response(self, text: str) -> str | None:
        if not self.runtime.bus.has("on_after_response"):
            return None
        answer = None
        for _skill, r in await self.runtime.fire("on_after_response", {"response": text}):
            if r.response is not None:
                answer = r.response
        return answer


def _call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "args": dict(call.args)}


def _facts(runtime: SkillRuntime) -> Any:
    """Scan the project only when some skill has a file or language trigger."""

    needs = any(e.manifest.triggers.files or e.manifest.triggers.languages for e in runtime.entries.values())
    return scan_project(runtime.services.root) if needs else ProjectFacts(runtime.services.root)


def warn(message: str) -> None:
    """The default report: a warning on the ``aiagent.agent.skills`` logger."""
    import logging

    logging.getLogger("aiagent.agent.skills").warning("aiagent: skills: %s", message)
