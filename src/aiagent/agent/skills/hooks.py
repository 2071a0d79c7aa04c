"""Skill lifecycle hooks (spec §4.6): nine phases, run in priority order (lower first).

A hook gets an event (a dict: phase, skill, conversation, tool_call, tool_result,
response, config) and may return a :class:`HookResult`. ``on_before_tool_call`` may change
the call's arguments or cancel it; ``on_after_tool_result`` may replace the result;
``on_after_response`` may replace the answer; any hook may inject prompt text. A hook that
raises or runs past its time limit is reported and skipped; the turn goes on.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PHASES = (
    "on_activate", "on_deactivate", "on_conversation_start", "on_before_prompt_build",
    "on_before_tool_call", "on_after_tool_result", "on_after_response",
    "on_before_wiki_section", "on_security_scan_complete",
)
DEFAULT_PRIORITY = 100
DEFAULT_TIMEOUT = 10.0
MAX_INJECTED = 16_000  # characters of injected prompt text kept per skill

HookHandler = Callable[[dict[str, Any]], Awaitable[Any]]
Reporter = Callable[[str], None]


@dataclass(slots=True)
class HookResult:
    modified: bool = False
    tool_args: dict[str, Any] | None = None  # before_tool_call: replacement arguments
    tool_result: dict[str, Any] | None = None  # after_tool_result: {"content", "is_error"}
    response: str | None = None  # after_response: replacement answer
    inject_prompt: str = ""
    cancel: bool = False
    reason: str = ""


def to_hook_result(value: Any) -> HookResult | None:
    """Read what a backend returned (None, a HookResult, a dict, or the Starlark
    ``hook_result(...)`` marker) into a :class:`HookResult`."""
    if value is None or isinstance(value, HookResult):
        return value
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, Mapping):
        from dataclasses import asdict

        value = asdict(value)
    if not isinstance(value, Mapping):
        raise TypeError(f"a hook must return hook_result(...) or None, not {type(value).__name__}")
    data = dict(value.get("__hook_result__", value))
    if "__error__" in value:
        raise RuntimeError(str(value["__error__"]))
    args = data.get("tool_args", data.get("modified_args"))
    if args is None and isinstance(data.get("tool_call"), Mapping):
        args = data["tool_call"].get("args", data["tool_call"].get("input"))
    result = data.get("tool_result", data.get("modified_result"))
    if result is not None and not isinstance(result, Mapping):
        result = {"content": str(result), "is_error": False}
    response = data.get("response", data.get("modified_response"))
    out = HookResult(
        tool_args=dict(args) if isinstance(args, Mapping) else None,
        tool_result=dict(result) if result is not None else None,
        response=None if response is None else str(response),
        inject_prompt=str(data.get("inject_prompt") or ""),
        cancel=bool(data.get("cancel")),
        reason=str(data.get("reason") or data.get("cancel_reason") or ""),
    )
    out.modified = bool(data.get("modified")) or any(
        (out.tool_args is not None, out.tool_result is not None, out.response is not None, out.cancel)
    )
    return out


@dataclass(slots=True)
class RegisteredHook:
    skill: str
    phase: str
    handler: HookHandler
    priority: int = DEFAULT_PRIORITY
    seq: int = 0


@dataclass(slots=True)
class HookBus:
    timeout: float = DEFAULT_TIMEOUT
    report: Reporter = lambda message: None
    hooks: list[RegisteredHook] = field(default_factory=list)
    injected: dict[str, list[str]] = field(default_factory=dict)  # skill -> prompt texts it injected, in order
    _seq: Any = field(default_factory=itertools.count)

    def add(self, skill: str, phase: str, handler: HookHandler, priority: int = DEFAULT_PRIORITY) -> None:
        if phase not in PHASES:
            raise ValueError(f"unknown hook phase {phase!r} (phases: {', '.join(PHASES)})")
        self.hooks.append(RegisteredHook(skill, phase, handler, int(priority), next(self._seq)))
        self.hooks.sort(key=lambda h: (h.priority, h.seq))

    def remove_skill(self, skill: str) -> None:
        self.hooks = [h for h in self.hooks if h.skill != skill]
        self.injected.pop(skill, None)

    def inject(self, skill: str, text: str) -> None:
        """Add ``text`` to what ``skill`` injected: injections accumulate (a repeat of a text
        already there is not added twice); past :data:`MAX_INJECTED` characters per skill
        the oldest go first."""
        texts = self.injected.setdefault(skill, [])
        if text in texts:
            return
        texts.append(text)
        while len(texts) > 1 and sum(map(len, texts)) > MAX_INJECTED:
            texts.pop(0)

    def injected_text(self, skill: str) -> str:
        return "\n\n".join(self.injected.get(skill, []))

    def has(self, phase: str) -> bool:
        return any(h.phase == phase for h in self.hooks)

    async def fire(self, phase: str, event: Mapping[str, Any], only: str | None = None) -> list[tuple[str, HookResult]]:
        """Run the hooks of ``phase`` (of skill ``only`` if given) in order; the event each
        sees carries what earlier hooks changed (arguments, result, response)."""
        results: list[tuple[str, HookResult]] = []
        current = dict(event)
        for hook in [h for h in self.hooks if h.phase == phase and (only is None or h.skill == only)]:
            result = await self._run(hook, {**current, "phase": phase, "skill": hook.skill})
            if result is None:
                continue
            if result.inject_prompt:
                self.inject(hook.skill, result.inject_prompt)
            _apply(current, result)
            results.append((hook.skill, result))
            if result.cancel:
                break
        return results

    async def _run(self, hook: RegisteredHook, event: dict[str, Any]) -> HookResult | None:
        import asyncio  # lazily: discovery (``skill list``) never runs a hook

        try:
            value = await asyncio.wait_for(hook.handler(event), self.timeout)
            return to_hook_result(value)
        except TimeoutError:
            self.report(f"skill {hook.skill}: {hook.phase} hook timed out after {self.timeout:g}s; skipped")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a broken hook must not end the turn
            self.report(f"skill {hook.skill}: {hook.phase} hook failed: {_one_line(exc)}; skipped")
        return None


def _apply(event: dict[str, Any], result: HookResult) -> None:
    if result.tool_args is not None and isinstance(event.get("tool_call"), dict):
        event["tool_call"] = {**event["tool_call"], "args": result.tool_args}
    if result.tool_result is not None:
        event["tool_result"] = result.tool_result
    if result.response is not None:
        event["response"] = result.response


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[-1] if text else type(exc).__name__)[:300]
