"""Platform gating: the Apple tools are offered only on macOS, a call elsewhere is one
line, and the apple-dev skill brings them (a project skill cannot claim them)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aiagent.agent.skills.host import HostServices
from aiagent.agent.skills.loader import Source, builtin_dir, discover
from aiagent.agent.skills.permissions import MemoryGrantStore, PermissionGate
from aiagent.agent.skills.runtime import SkillRuntime
from aiagent.agent.tools.apple import TOOLS
from aiagent.agent.tools.apple.gating import missing_executable, offered, platform_problem
from aiagent.agent.tools.profiles import GROUPS

AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def test_offered_depends_on_the_platform() -> None:
    names = ["read_file", *TOOLS]
    everywhere = ["read_file", "xcode_project_info", "xcode_assets", "xcode_data_model",
                  "codesign_info", "codesign_doctor", "swift_build", "swift_test", "swift_resolve",
                  "swift_add_dep", "swift_remove_dep"]  # they read files or run `swift`
    assert offered(names, "darwin") == names
    assert offered(names, "linux") == everywhere
    assert offered(names, "win32") == everywhere
    assert platform_problem("xcode_build", "win32") == "xcode_build needs macOS and Xcode; it is not available on Windows"
    assert platform_problem("read_file", "linux") is None  # not an Apple tool: never gated
    assert set(GROUPS["apple"]) == set(TOOLS)


def test_missing_executable_says_how_to_install(tmp_path: Path) -> None:
    assert missing_executable("sim_list", path=str(tmp_path)).startswith(
        "sim_list needs `xcrun`, which is not on PATH: install Xcode or the Command Line Tools")
    (tmp_path / "xcrun").write_text("#!/bin/sh\n")
    (tmp_path / "xcrun").chmod(0o755)
    assert missing_executable("sim_list", path=str(tmp_path)) is None


@pytest.mark.parametrize(("platform", "expected"), [("linux", False), ("darwin", True)])
def test_tools_list_marks_what_is_offered(tmp_path: Path, platform: str, expected: bool) -> None:
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.toml").write_text('[agent]\ntool_profile = "all"\n')
    env = {**os.environ, "AIAGENT_APPLE_PLATFORM": platform, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "c")}
    done = subprocess.run([AIAGENT, "tools", "list", "--json", "--cwd", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, env=env)
    specs = {s["name"]: s for s in json.loads(done.stdout)}
    assert specs["xcode_build"]["offered"] is expected and specs["read_file"]["offered"] is True
    assert specs["xcode_build"]["input_schema"]["required"] == ["scheme"]


def _runtime(folders: list[Source], project: Path, reports: list[str]) -> SkillRuntime:
    services = HostServices(root=project, env={"PATH": "/usr/bin:/bin", "HOME": str(project)})
    gate = PermissionGate(MemoryGrantStore(), str(project), frozenset({"*"}))
    return SkillRuntime(discover(folders), services, gate, report=reports.append)


@pytest.mark.parametrize(("platform", "expected"), [("darwin", True), ("linux", False)])
def test_apple_dev_skill_brings_the_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           platform: str, expected: bool) -> None:
    monkeypatch.setenv("AIAGENT_APPLE_PLATFORM", platform)
    reports: list[str] = []
    rt = _runtime([Source("builtin", builtin_dir())], tmp_path, reports)
    active = asyncio.run(rt.activate("apple-dev", "test"))
    assert ("xcode_build" in active.tools) is expected and ("sim_log" in rt.tool_objects) is expected
    assert "xcode_project_info" in active.tools and "swift_add_dep" in active.tools  # everywhere
    if expected:
        assert rt.tool_objects["xcode_build"].effect.executes  # the tool's own effect, not the skill's
    asyncio.run(rt.deactivate("apple-dev"))
    assert "xcode_build" not in rt.tool_objects and not reports


def test_a_project_skill_cannot_claim_builtin_tools(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "sneaky"
    skill.mkdir(parents=True)
    (skill / "SKILL.yaml").write_text(
        "name: sneaky\nversion: 1.0.0\ndescription: wants the shell\ntypes: [tool]\n"
        "builtin_tools: [shell_command]\n")
    reports: list[str] = []
    rt = _runtime([Source("project", tmp_path / "skills")], tmp_path, reports)
    active = asyncio.run(rt.activate("sneaky", "test"))
    assert active.tools == [] and "shell_command" not in rt.tool_objects
    assert reports == ["skill sneaky: builtin_tools is for built-in skills only; ignored"]
