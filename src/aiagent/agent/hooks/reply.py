"""Run one hook command and read what it answered, in Claude Code's terms.

* exit 0: stdout may be a JSON object (``continue``, ``stopReason``, ``systemMessage``,
  ``decision``/``reason``, ``hookSpecificOutput`` with ``permissionDecision``,
  ``permissionDecisionReason``, ``additionalContext``); for UserPromptSubmit and
  SessionStart, plain text on stdout is context for the model.
* exit 2: a blocking answer; stderr is the reason (stdout is not read).
* anything else (another code, a time-out, a crash, output over the cap, JSON that does
  not parse): reported to the user, and the run goes on as if the hook had said nothing.

The command runs through the project's process runner (its own process tree, killed whole
at the time limit), with ``bash -c`` (``sh -c`` without bash), in the project root.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent.agent.hooks.config import HookSpec

BLOCK_EXIT = 2
PERMISSIONS = ("allow", "deny", "ask")
CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
NOT_HONOURED = ("updatedInput", "updatedMCPToolOutput", "suppressOutput")


@dataclass(slots=True)
class Reply:
    """What one hook run came to."""

    spec: HookSpec
    exit_code: int | None = None
    duration: float = 0.0
    block: bool = False  # exit 2, decision "block"/"deny"
    reason: str = ""
    permission: str | None = None  # PreToolUse: allow | deny | ask
    context: str = ""  # additionalContext, or plain stdout (UserPromptSubmit, SessionStart)
    stop: bool = False  # "continue": false
    stop_reason: str = ""
    system_message: str = ""
    problems: list[str] = field(default_factory=list)  # reported to the user

    @property
    def denies(self) -> bool:
        return self.block or self.permission == "deny"


async def run(spec: HookSpec, payload: Mapping[str, Any], *, cwd: Path, env: Mapping[str, str],
              max_bytes: int) -> Reply:
    """Run ``spec`` with ``payload`` (JSON) on its stdin and read its answer."""
    from aiagent.infra.process.collect import run_collected

    shell = shutil.which("bash", path=env.get("PATH")) or "/bin/sh"
    data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
    started = time.monotonic()
    try:
        done = await run_collected([shell, "-c", spec.command], cwd=cwd, timeout=spec.timeout,
                                   env=env, max_bytes=max_bytes, stdin=data)
    except OSError as exc:
        return Reply(spec, problems=[f"could not start: {exc}"])
    reply = Reply(spec, done.exit_code, time.monotonic() - started)
    if done.truncated:
        reply.problems.append(f"printed more than {max_bytes} bytes; the rest was dropped")
    if done.timed_out:
        reply.problems.append(f"timed out after {spec.timeout:g}s and was killed; ignored")
        return reply
    read(reply, _text(done.stdout), _text(done.stderr))
    return reply


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def read(reply: Reply, stdout: str, stderr: str) -> None:
    """Fill ``reply`` from the exit code and the output."""
    code = reply.exit_code
    if code == BLOCK_EXIT:
        reply.block = True
        reply.reason = stderr.strip() or "(the hook gave no reason on stderr)"
        return
    if code != 0:
        detail = _first_line(stderr) or _first_line(stdout)
        reply.problems.append(f"exited with code {code}" + (f": {detail}" if detail else "")
                              + "; ignored (only exit 2 blocks)")
        return
    text = stdout.strip()
    if text.startswith("{"):
        try:
            answer = json.loads(text)
        except ValueError as exc:
            reply.problems.append(f"printed invalid JSON ({exc}); its output was ignored")
            return
        if isinstance(answer, dict):
            _json_answer(reply, answer)
            return
    if text and reply.spec.event in CONTEXT_EVENTS:
        reply.context = text


def _json_answer(reply: Reply, answer: dict[str, Any]) -> None:
    event = reply.spec.event
    if answer.get("continue") is False:
        reply.stop = True
        reply.stop_reason = _str(answer.get("stopReason")) or "a hook stopped the run"
    reply.system_message = _str(answer.get("systemMessage"))
    decision = answer.get("decision")
    if decision in ("block", "deny"):
        reply.block = True
        reply.reason = _str(answer.get("reason")) or "(the hook gave no reason)"
    elif decision in ("approve", "allow") and event == "PreToolUse":
        reply.permission = "allow"
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict):
        _specific(reply, specific)
    for key in NOT_HONOURED:
        if key in answer or (isinstance(specific, dict) and key in specific):
            reply.problems.append(f"{key} is not honoured by aiagent; ignored")


def _specific(reply: Reply, specific: dict[str, Any]) -> None:
    permission = specific.get("permissionDecision")
    if permission is not None and reply.spec.event == "PreToolUse":
        if permission in PERMISSIONS:
            reply.permission = permission
            reply.reason = _str(specific.get("permissionDecisionReason")) or reply.reason
        else:
            reply.problems.append(f"permissionDecision {permission!r} is not one of "
                                  f"{', '.join(PERMISSIONS)}; ignored")
    context = _str(specific.get("additionalContext"))
    if context:
        reply.context = context


def _str(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0][:300] if lines else ""
