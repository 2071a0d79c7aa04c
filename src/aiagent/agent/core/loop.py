"""The agent loop: ask the model, run the tools it calls, repeat until it is done.

``Agent.run`` yields :data:`AgentEvent`s. The work happens in a task that puts events on a
queue, so a tool's live output, an approval request and the model's text all arrive in one
ordered stream, and a timeout or cancel can stop the work at any await. Leaving the loop
(turn limit, timeout, cancel, provider failure) is an exception that carries its reason;
the last event is always :class:`DoneEvent`.

An unexpected exception the loop turns into an error (the run's, or one tool's or hook's)
is logged with its traceback at DEBUG on the ``aiagent.agent.core`` logger: ``--debug``
shows it on stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from aiagent.agent.core.context import ContextPolicy, PassThrough
from aiagent.agent.core.conversation import Conversation
from aiagent.agent.core.images import ImageInputError, user_message, vision_refusal
from aiagent.agent.core.protocols import ToolProtocol, make_protocol
from aiagent.agent.tools.base import ToolRegistry, release_tool_state, validate_args
from aiagent.contracts.approval import AllowAll, ApprovalPolicy
from aiagent.contracts.events import (
    AgentEvent,
    ApprovalAnswer,
    ApprovalRequestEvent,
    CompactionEvent,
    DoneEvent,
    ErrorEvent,
    RetryEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolOutputEvent,
    ToolResultEvent,
    TurnEndEvent,
    UsageEvent,
)
from aiagent.contracts.hooks import GoOn, Hooks, ToolCall
from aiagent.contracts.messages import (
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from aiagent.contracts.prompt import PromptFragment
from aiagent.contracts.providers import (
    CompletionRequest,
    ContextOverflowError,
    Provider,
    ProviderError,
    Restart,
    Stop,
    TextDelta,
    ToolUse,
    UsageReport,
)
from aiagent.contracts.tools import (
    FileAccess,
    Tool,
    ToolContext,
    ToolEffect,
    ToolError,
    ToolResult,
    effect_of,
)

EXIT_OK, EXIT_INTERNAL, EXIT_LIMIT, EXIT_INTERRUPTED = 0, 5, 4, 130
log = logging.getLogger("aiagent.agent.core")
NOT_ALLOWED, DECLINED = "not allowed: ", "the user declined to run "  # refused calls' results
STOPPED_RESULT = "not run: the run was stopped (interrupted or out of time) before this call finished"


class RunEnded(Exception):
    """Leaves the loop early; carries the stop reason and exit code."""

    def __init__(self, stop_reason: str, exit_code: int, message: str = "") -> None:
        super().__init__(message or stop_reason)
        self.stop_reason = stop_reason
        self.exit_code = exit_code


@dataclass(slots=True)
class AgentConfig:
    model: str
    max_turns: int = 50
    timeout: float | None = None  # seconds for the whole run
    max_tokens: int = 8192
    temperature: float | None = None
    tools: Collection[str] | None = None  # names offered to the model; None = registry's all
    tool_settings: dict[str, Any] = field(default_factory=dict)
    allow_outside_workspace: bool = False
    #: a name from :mod:`aiagent.agent.core.protocols`: "native" tool calls, or "tags" (the model
    #: writes <shell>…</shell> in its answer)
    tool_protocol: str = "native"


class AgentSessionLike(Protocol):
    """What :meth:`Agent.use_session` takes (:class:`aiagent.agent.core.session.AgentSession`)."""

    @property
    def conversation(self) -> Conversation: ...

    @property
    def context(self) -> ContextPolicy: ...

    def attach(self, agent: Any) -> None: ...


PromptBuilder = Callable[[Sequence[PromptFragment]], str]


class Agent:
    def __init__(
        self,
        provider: Provider,
        tools: ToolRegistry,
        config: AgentConfig,
        *,
        system_prompt: str = "",
        workspace: Path | None = None,
        approval: ApprovalPolicy | None = None,
        hooks: Hooks | None = None,
        conversation: Conversation | None = None,
        context: ContextPolicy | None = None,
        redact: Callable[[str], str] | None = None,
        build_prompt: PromptBuilder | None = None,
        budget: Any = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.config = config
        self.system_prompt = system_prompt
        self.workspace = (workspace or Path.cwd()).resolve()
        self.approval = approval or AllowAll()
        self.hooks = hooks or Hooks()
        self.conversation = conversation if conversation is not None else Conversation()
        self.context: ContextPolicy = context if context is not None else PassThrough()
        self.session: AgentSessionLike | None = None  # the stored session, once use_session ran
        self.redact = redact  # masks secret values in live tool output
        self.build_prompt = build_prompt  # system prompt with extra fragments (skills)
        self.skills: Any = None  # the skill runtime, once added with use_skills
        self.user_hooks: Any = None  # the user's hooks (aiagent.agent.hooks), for its task children
        self.usage = Usage()
        #: a spending limit checked before each request (:class:`aiagent.agent.core.budget.Budget`)
        self.budget: Any = budget
        self.usage_elsewhere: list[tuple[str, Usage]] = []  # (model, usage) of each task child
        self._retired: list[Provider] = []  # replaced providers, closed with the agent
        self.tool_state: dict[str, Any] = {}
        self.files: FileAccess | None = None  # the front-end's view of files (editor buffers)
        self._cancel = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._started = False
        self.protocol: ToolProtocol = make_protocol(config.tool_protocol, config.tool_settings)

    # ---- public ----------------------------------------------------------------------

    async def run(self, user_input: str, images: Sequence[ImageBlock] = ()) -> AsyncIterator[AgentEvent]:
        """The events of one prompt; ``images``: what the user attached (see ``images.py``)."""
        queue: asyncio.Queue[AgentEvent] = asyncio.Queue()
        self._cancel.clear()
        self._worker = asyncio.create_task(self._work(user_input, queue.put_nowait, tuple(images)))
        try:
            while True:
                event = await queue.get()
                yield event
                if isinstance(event, DoneEvent):
                    return
        finally:
            await self._stop_worker()

    async def aclose(self) -> None:
        """Stop what tools left running and release the provider's connections (call once
        the front-end is done with this agent)."""
        await self._stop_worker()
        try:
            await self.hooks.close()
        finally:
            await release_tool_state(self.tool_state)
            for provider in [*self._retired, self.provider]:
                await provider.aclose()

    # ---- what a front-end or the set-up may change ---------------------------------------

    def use_provider(self, provider: Provider, *, model: str | None = None) -> None:
        """Talk to ``provider`` from the next request on (``/provider``); the old one is
        closed with the agent."""
        self._retired.append(self.provider)
        self.provider = provider
        if model:
            self.config.model = model

    def use_model(self, model: str) -> None:
        self.config.model = model

    def use_session(self, session: AgentSessionLike) -> None:
        """Continue in ``session``: its history, its context window, usage counted anew."""
        self.conversation = session.conversation
        self.context = session.context
        self.session = session
        self.usage, self.usage_elsewhere = Usage(), []
        session.attach(self)

    def add_usage(self, usage: Usage, model: str = "") -> None:
        """Count tokens spent for this agent elsewhere (a ``task`` child, on ``model``) in its
        total; ``usage_elsewhere`` keeps them apart, to price each at its model."""
        self.usage = self.usage + usage
        if model:
            self.usage_elsewhere.append((model, usage))

    def use_files(self, files: FileAccess | None) -> None:
        """Let tools read files through the front-end (an editor's unsaved buffers)."""
        self.files = files

    def add_hooks(self, hooks: Hooks, *, first: bool = False,
                  guard: Callable[[ApprovalPolicy], ApprovalPolicy] | None = None,
                  user: Any = None) -> None:
        """Add hooks after (or, ``first``, before) those already there; ``guard`` puts a policy
        in front of the current approval policy (user hooks may deny before it is asked);
        ``user``: the user's hooks they come from (:mod:`aiagent.agent.hooks`), kept for this
        agent's ``task`` children (SubagentStop)."""
        if user is not None:
            self.user_hooks = user
        if guard is not None:
            self.approval = guard(self.approval)
        if first:
            combined = Hooks()
            combined.extend(hooks)
            combined.extend(self.hooks)
            self.hooks = combined
        else:
            self.hooks.extend(hooks)

    def use_skills(self, runtime: Any, hooks: Hooks) -> None:
        """Register the skill runtime and its hooks (see :mod:`aiagent.agent.skills.wiring`)."""
        self.skills = runtime
        self.add_hooks(hooks)

    def add_tool(self, tool: Tool, *, offer: bool = True) -> None:
        """Register ``tool``; ``offer`` it to the model too when the offer is a list."""
        self.tools.register(tool)
        if offer:
            self.offer_tool(tool.name)

    def offer_tool(self, name: str) -> None:
        offered = self.config.tools
        if isinstance(offered, list) and name not in offered:
            offered.append(name)

    def remove_tool(self, name: str) -> None:
        self.tools.unregister(name)
        offered = self.config.tools
        if isinstance(offered, list) and name in offered:
            offered.remove(name)

    def use_prompt_fragments(self, fragments: Sequence[PromptFragment]) -> None:
        """Rebuild the system prompt with ``fragments`` (active skills, the skill index)."""
        if self.build_prompt is not None:
            self.system_prompt = self.build_prompt(fragments)

    @property
    def can_compact(self) -> bool:
        return hasattr(self.context, "compact_now")

    async def compact(self) -> CompactionEvent | None:
        """Summarise older turns now (``/compact``, ``aiagent sessions compact``); None
        when there was nothing to compact. Raises RuntimeError when the summary failed."""
        compact_now = getattr(self.context, "compact_now", None)
        if compact_now is None:
            raise RuntimeError("this agent has no context window to compact")
        events: list[AgentEvent] = []
        await compact_now(self.request(), self.provider, events.append)
        return next((e for e in reversed(events) if isinstance(e, CompactionEvent)), None)

    def cancel(self) -> None:
        """Stop the run in flight (Ctrl-C). The stream ends with an interrupted DoneEvent."""
        self._cancel.set()
        if self._worker is not None and not self._worker.done():
            self._worker.cancel()

    # ---- the loop --------------------------------------------------------------------

    async def _work(self, user_input: str, emit: Callable[[AgentEvent], None],
                    images: tuple[ImageBlock, ...] = ()) -> None:
        turns, answer = 0, ""
        self.protocol.begin_run()
        try:
            async with asyncio.timeout(self.config.timeout or None):
                if images and (refused := vision_refusal(self.provider, self.config.model)):
                    raise ImageInputError(refused)
                self.conversation.append(user_message(user_input, images))
                if not self._started:
                    self._started = True
                    await self.hooks.conversation_start(self.conversation.messages)
                else:
                    await self.hooks.user_turn(user_input)
                while True:
                    if turns >= self.config.max_turns:
                        raise RunEnded("max_turns", EXIT_LIMIT)
                    turns += 1
                    message, stop = await self._respond(emit)
                    self.conversation.append(message)
                    emit(TurnEndEvent(turns, stop))
                    answer = message.text
                    uses = self.protocol.calls(message, turns)
                    if not uses:
                        try:
                            answer = await self.hooks.after_response(message.text)
                        except GoOn as more:  # a Stop hook's "block": the model goes on
                            self.conversation.append(Message("user", [TextBlock(more.instruction)]))
                            continue
                        break
                    await self._run_tools(uses, emit)
            emit(DoneEvent("completed", answer, turns, self.usage, EXIT_OK))
        except RunEnded as end:
            emit(DoneEvent(end.stop_reason, answer, turns, self.usage, end.exit_code))
        except TimeoutError:
            emit(DoneEvent("timeout", answer, turns, self.usage, EXIT_LIMIT))
        except asyncio.CancelledError:
            emit(DoneEvent("interrupted", answer, turns, self.usage, EXIT_INTERRUPTED))
        except (ProviderError, ImageInputError) as exc:
            emit(ErrorEvent(str(exc), exc.exit_code))
            emit(DoneEvent("error", answer, turns, self.usage, exc.exit_code))
        except Exception as exc:  # noqa: BLE001 - the stream must always end with Done
            log.debug("the agent loop failed", exc_info=exc)
            emit(ErrorEvent(f"internal error: {type(exc).__name__}: {exc}", EXIT_INTERNAL))
            emit(DoneEvent("error", answer, turns, self.usage, EXIT_INTERNAL))

    async def _respond(self, emit: Callable[[AgentEvent], None]) -> tuple[Message, str]:
        """One model response. If the provider says the request did not fit the model's
        window, the context is shrunk and compacted once more, and the request sent again."""
        while True:
            request = await self.context.prepare(self.request(), self.provider, emit)
            over = (self.budget.check(request, self.usage, self.usage_elsewhere)
                    if self.budget is not None else "")
            if over:
                raise RunEnded("max_budget", EXIT_LIMIT, over)
            try:
                return await self._stream(request, emit)
            except ContextOverflowError as exc:
                if not self.context.overflowed():
                    raise
                emit(RetryEvent(f"{exc}; compacting", 1, 0.0))

    def request(self) -> CompletionRequest:
        """The next model request: system prompt, history and offered tools (the one place
        a request for this conversation is built)."""
        return CompletionRequest(
            model=self.config.model,
            system=self.system_prompt,
            messages=self.conversation.messages,
            tools=self.protocol.offered_tools(self.tools, self.config.tools),
            max_tokens=self.config.max_tokens,
            temperature=self.config.temperature,
        )

    async def _stream(
        self, request: CompletionRequest, emit: Callable[[AgentEvent], None]
    ) -> tuple[Message, str]:
        """Stream one response; return the assistant message and its stop reason."""
        text: list[str] = []
        blocks: list[Block] = []
        stop = "end_turn"
        async for event in self.provider.stream(request):
            if isinstance(event, TextDelta):
                text.append(event.text)
                emit(TextDeltaEvent(event.text))
            elif isinstance(event, ToolUse):
                _flush_text(text, blocks)
                blocks.append(event.block)
            elif isinstance(event, UsageReport):
                self.usage = self.usage + event.usage
                self.context.observe(event.usage)
                emit(UsageEvent(event.usage, self.usage))
            elif isinstance(event, Stop):
                stop = event.reason
            elif isinstance(event, Restart):
                text.clear()
                blocks.clear()
                emit(RetryEvent(event.reason, event.attempt, event.delay))
        _flush_text(text, blocks)
        return Message("assistant", blocks), stop

    # ---- tools -----------------------------------------------------------------------

    async def _run_tools(
        self, uses: list[ToolUseBlock], emit: Callable[[AgentEvent], None]
    ) -> None:
        """Run each call in order and append the results as the protocol words them. If
        the run stops midway (cancel, timeout), the calls not finished get a "not run"
        result, so the history stays valid for the next request."""
        results: list[ToolResultBlock] = []
        try:
            for batch in batches(uses, self.tools):  # tools marked ``concurrent``: side by side
                if len(batch) == 1:
                    results.append(await self._call_tool(batch[0], emit))
                else:
                    results += await asyncio.gather(*(self._call_tool(u, emit) for u in batch))
        finally:
            finished = len(results) == len(uses)
            for use in uses[len(results) :]:
                results.append(ToolResultBlock(use.id, STOPPED_RESULT, True))
            reply = self.protocol.results_message(uses, results, finished)
            if reply is not None:
                self.conversation.append(reply)

    async def _call_tool(
        self, use: ToolUseBlock, emit: Callable[[AgentEvent], None]
    ) -> ToolResultBlock:
        emit(ToolCallEvent(use.id, use.name, use.input))
        call = ToolCall(use.id, use.name, dict(use.input))
        result = await self._tool_result(call, use, emit)
        result = await guard(self.hooks.after_tool_result(call, result), "a hook")
        content = self.context.fit_result(use.id, result.content)
        emit(ToolResultEvent(use.id, use.name, content, result.is_error))
        return ToolResultBlock(use.id, content, result.is_error, images=tuple(result.images))

    async def _tool_result(
        self, call: ToolCall, use: ToolUseBlock, emit: Callable[[AgentEvent], None]
    ) -> ToolResult:
        offered = self.config.tools
        tool = self.tools.get(call.name) if offered is None or call.name in offered else None
        if tool is None:
            names = ", ".join(self.tools.names() if offered is None else sorted(offered))
            return ToolResult(f"unknown tool {call.name!r}; available tools: {names}", True)
        if use.input_error:
            return ToolResult(f"arguments for {call.name} are not valid: {use.input_error}", True)
        verdict = await self.hooks.before_tool_call(call)
        if verdict is not None:
            return ToolResult(f"tool call cancelled: {verdict.reason}", True)
        problem = validate_args(tool, call.args)
        if problem:
            return ToolResult(problem, True)
        decision = await self.approval.decide(tool, call.args)
        if decision.verdict == "ask":
            answer = await _ask(call, emit, effect_of(tool))
            self.approval.record(tool, call.args, answer)
            if answer == "deny":
                return ToolResult(f"{DECLINED}{call.name}", True)
        elif decision.verdict == "deny":
            return ToolResult(f"{NOT_ALLOWED}{decision.reason}", True)
        ctx = ToolContext(
            workspace=self.workspace,
            call_id=call.id,
            emit=_masked(emit, self.redact),
            cancel=self._cancel,
            settings=self.config.tool_settings,
            state=self.tool_state,
            allow_outside_workspace=self.config.allow_outside_workspace,
            # allowed without a person approving this call: commands run sandboxed
            sandbox_required=decision.verdict == "allow" and decision.sandbox,
            files=self.files,
        )
        return await guard(tool.run(call.args, ctx), f"tool {call.name}")

    async def _stop_worker(self) -> None:
        worker = self._worker
        if worker is not None and not worker.done():
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker


async def guard(work: Any, who: str) -> ToolResult:
    """Await a tool or hook; turn its failure into an error result the model reads."""
    try:
        result: ToolResult = await work
        return result
    except ToolError as exc:
        return ToolResult(str(exc), True)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - a tool's bug must not end the run
        log.debug("%s failed", who, exc_info=exc)  # the traceback under --debug
        return ToolResult(f"{who} failed: {type(exc).__name__}: {exc}", True)


def batches(uses: list[ToolUseBlock], tools: ToolRegistry) -> list[list[ToolUseBlock]]:
    """Consecutive calls of tools that say ``concurrent = True`` (``task``) in one batch."""
    found: list[list[ToolUseBlock]] = []
    together = False
    for use in uses:
        tool = tools.get(use.name) if use.name in tools else None
        alone = not getattr(tool, "concurrent", False)
        if found and together and not alone:
            found[-1].append(use)
        else:
            found.append([use])
        together = not alone
    return found


def tracebacks_shown() -> bool:
    """Whether the tracebacks of errors the loop catches reach the user (``--debug``)."""
    return log.isEnabledFor(logging.DEBUG)


def _masked(emit: Callable[[AgentEvent], None],
            redact: Callable[[str], str] | None) -> Callable[[AgentEvent], None]:
    """``emit``, with secret values masked in live tool output."""
    if redact is None:
        return emit

    def masked(event: AgentEvent) -> None:
        if isinstance(event, ToolOutputEvent):
            event = ToolOutputEvent(event.id, event.stream, redact(event.chunk))
        emit(event)

    return masked


async def _ask(call: ToolCall, emit: Callable[[AgentEvent], None],
               effect: ToolEffect) -> ApprovalAnswer:
    """Ask the person (through the front-end) whether ``call`` may run."""
    future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
    what = f"{call.name} {_brief(call.args)}"
    emit(ApprovalRequestEvent(uuid.uuid4().hex[:12], call.name, what, call.args,
                              future=future, effect=effect, call_id=call.id))
    return await future


def _flush_text(text: list[str], blocks: list[Block]) -> None:
    if text:
        blocks.append(TextBlock("".join(text)))
        text.clear()


def _brief(args: dict[str, Any], limit: int = 200) -> str:
    import json

    rendered = json.dumps(args, ensure_ascii=False)
    return rendered if len(rendered) <= limit else rendered[: limit - 1] + "…"
