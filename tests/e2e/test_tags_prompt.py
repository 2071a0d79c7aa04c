"""The tags protocol (``<shell>`` blocks, no native tool calls): its system prompt names no
tool the model cannot call in that mode. Checked on the prompt the real ``aiagent`` sends,
with a skill installed (whose index would otherwise ask for ``activate_skill``)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aiagent.agent.tools.base import ToolRegistry
from aiagent.testing import FakeLLM, Turn

SKILL = Path(__file__).parents[1] / "skills" / "fixtures" / "skills" / "md-only"
SKILL_TOOLS = ("activate_skill", "run_workflow")


def all_tool_names() -> set[str]:
    return set(ToolRegistry().names()) | set(SKILL_TOOLS)


def mentioned(prompt: str) -> set[str]:
    """Tool names the prompt mentions as names: in backticks, or as identifiers with an
    underscore (plain words such as "shell" or "edit" are ordinary English)."""
    names = all_tool_names()
    ticked = set(re.findall(r"`([a-z_]+)`", prompt))
    words = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", prompt))
    return (ticked | words) & names


def sent_request(run_cli: Callable[..., subprocess.CompletedProcess[str]], project: Path,
                 protocol: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    (project / ".agent" / "config.toml").write_text(f'[agent]\ntool_protocol = "{protocol}"\n')
    with FakeLLM([Turn(text="done")]) as fake:
        proc = run_cli("--headless", "--provider", "openai", "--model", "test-model", "--prompt", "go",
                       cwd=project, env={"OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test"})
        body = next(r["json"] for r in fake.requests if r["json"])
    return proc, body


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    shutil.copytree(SKILL, folder / ".agent" / "skills" / "md-only")
    return folder


def test_tags_prompt_names_only_available_tools(run_cli: Callable[..., Any], project: Path) -> None:
    proc, body = sent_request(run_cli, project, "tags")
    assert proc.returncode == 0, proc.stderr
    offered = {t["function"]["name"] for t in body.get("tools", [])}
    assert offered == set()  # the tags protocol offers no native tools
    system = body["messages"][0]["content"]
    assert "<shell>" in system
    assert mentioned(system) <= offered, mentioned(system)


def test_native_prompt_still_offers_the_skill_index(run_cli: Callable[..., Any], project: Path) -> None:
    """The twin: with native tool calls the same skill is indexed and its tool offered."""
    proc, body = sent_request(run_cli, project, "native")
    assert proc.returncode == 0, proc.stderr
    offered = {t["function"]["name"] for t in body["tools"]}
    system = body["messages"][0]["content"]
    assert "activate_skill" in mentioned(system) and "activate_skill" in offered
    assert mentioned(system) <= offered, mentioned(system) - offered
