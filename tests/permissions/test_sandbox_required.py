"""A shell command that runs without a person approving it runs in the sandbox; one a person
approved runs as before. Real bubblewrap, real shell tool, real agent loop over FakeLLM."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aiagent.agent.core.loop import Agent, AgentConfig
from aiagent.agent.permissions.policy import PermissionPolicy, parse_rule
from aiagent.agent.tools.base import ToolRegistry
from aiagent.agent.tools.shell.tools import sandboxed
from aiagent.contracts.events import AgentEvent, ApprovalRequestEvent, ToolResultEvent
from aiagent.contracts.providers import ProviderConfig
from aiagent.contracts.tools import ToolContext, ToolError
from aiagent.infra.providers import create_provider
from aiagent.infra.sandbox import detect, writable_paths
from aiagent.testing import FakeLLM, ToolCall, Turn

SETTINGS_OFF = {"sandbox": {"enabled": False, "backend": "", "network": False, "writable": []},
                "shell": {"login": False}}


@pytest.fixture(autouse=True)
def needs_bubblewrap() -> None:
    if detect("bubblewrap").backend != "bubblewrap":
        pytest.skip(f"needs bubblewrap: {detect('bubblewrap').detail}")


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A folder outside the workspace and outside every folder the sandbox lets a command
    write (the workspace and the temp folders), for markers."""
    for base in (Path.home(), Path(__file__).resolve().parent):
        folder = Path(tempfile.mkdtemp(prefix="aiagent-outside-", dir=base))
        if not any(folder.is_relative_to(w) for w in writable_paths(tmp_path)):
            yield folder
            shutil.rmtree(folder, ignore_errors=True)
            return
        shutil.rmtree(folder, ignore_errors=True)
    pytest.fail("no folder outside the sandbox's writable paths for the marker")


def test_sandboxed_wraps_only_when_required(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path, settings=SETTINGS_OFF)
    assert sandboxed(["true"], ctx) == ["true"]
    ctx.sandbox_required = True
    wrapped = sandboxed(["true"], ctx)
    assert Path(wrapped[0]).name == "bwrap" and wrapped[-1] == "true" and not ctx.notes


def test_no_sandbox_here_runs_with_a_note(tmp_path: Path) -> None:
    settings = {**SETTINGS_OFF, "sandbox": {**SETTINGS_OFF["sandbox"], "backend": "seatbelt"}}
    ctx = ToolContext(workspace=tmp_path, settings=settings, sandbox_required=True)
    assert sandboxed(["true"], ctx) == ["true"]
    assert len(ctx.notes) == 1 and "ran without a sandbox" in ctx.notes[0]
    # full-auto's sandbox (settings enabled) still refuses to run without one, as before
    enabled = {"sandbox": {**settings["sandbox"], "enabled": True}}
    with pytest.raises(ToolError, match="not run"):
        sandboxed(["true"], ToolContext(workspace=tmp_path, settings=enabled))


def run(ws: Path, policy: PermissionPolicy, command: str) -> tuple[str, list[AgentEvent]]:
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": command})]), Turn(text="ok")]
    with FakeLLM(script) as fake:
        config = ProviderConfig(base_url=fake.url, api_key="k", api_key_env="K", max_retries=0)
        agent = Agent(create_provider("anthropic", config), ToolRegistry(),
                      AgentConfig(model="m", max_turns=3, tool_settings=SETTINGS_OFF),
                      system_prompt="test", workspace=ws, approval=policy)

        async def consume() -> list[AgentEvent]:
            events = []
            async for event in agent.run("go"):
                if isinstance(event, ApprovalRequestEvent):
                    event.answer("once")
                events.append(event)
            return events

        events = asyncio.run(consume())
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert len(results) == 1
    return results[0].content, events


def policy(ws: Path, **kw: Any) -> PermissionPolicy:
    return PermissionPolicy(kw.pop("mode", "prompt"), None, workspace=ws, **kw)


def test_granted_runs_sandboxed_approved_once_runs_as_before(tmp_path: Path, outside: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    granted = policy(ws, rules=[parse_rule("shell:touch", "allow", "--approve")])
    text, events = run(ws, granted, f"touch {outside}/granted; touch inside.txt")
    assert not any(isinstance(e, ApprovalRequestEvent) for e in events)
    assert not (outside / "granted").exists(), text  # outside the workspace: refused
    assert (ws / "inside.txt").exists()  # the workspace stays writable
    text, events = run(ws, policy(ws, interactive=True), f"touch {outside}/once")
    assert any(isinstance(e, ApprovalRequestEvent) for e in events)
    assert (outside / "once").exists(), text  # a person approved it: no sandbox, as before
