"""The Apple tools reach the model as the `apple-dev` skill's tools: a real headless run
against FakeLLM in an Xcode project activates the skill (file trigger), offers the Apple
tools where they can run, and the model's xcode_build / xcode_test calls come back as the
parsed structure. On Linux they are not offered at all."""

from __future__ import annotations

import json
from pathlib import Path

from apple_harness import tool_results

from aiagent.testing import FakeLLM, ToolCall, Turn


def _env(fake: FakeLLM, extra: dict[str, str]) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456", **extra}


def _offered(request: dict) -> list[str]:
    return [t["name"] for t in request["json"].get("tools", [])]


def _tool_results(request: dict) -> list[str]:
    return [text for text, _ in tool_results(request)]


def test_build_then_test_through_the_model(run_cli, fake_apple, ios_project: Path) -> None:
    fake_apple.scenario(xcodebuild="build_compile_errors_xcode15.log", xcodebuild_exit=65)
    script = [
        Turn(text="Building.", tool_calls=[ToolCall("xcode_build", {"project": "MyApp.xcodeproj", "scheme": "MyApp"})]),
        Turn(text="Testing.", tool_calls=[ToolCall("xcode_test", {"scheme": "MyApp"})]),
        Turn(text="The build fails at ContentView.swift:14."),
    ]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--provider", "anthropic", "--prompt", "Build the app and run the tests",
                       "--approval-mode", "full-auto", cwd=ios_project, env=_env(fake, fake_apple.env()))
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The build fails at ContentView.swift:14."
    assert {"xcode_build", "xcode_test", "sim_list"} <= set(_offered(sent[0]))
    build = json.loads(_tool_results(sent[1])[0])
    assert (build["errors"][0]["line"], build["errors"][0]["column"]) == (14, 13)
    assert build["summary"].startswith("BUILD FAILED: 2 errors")
    test = json.loads(_tool_results(sent[2])[-1])
    assert test["action"] == "test" and test["status"] == "failed"
    assert [c[0] for c in fake_apple.calls()].count("xcodebuild") == 2


def test_linux_does_not_offer_them(run_cli, ios_project: Path) -> None:
    script = [Turn(text="Trying.", tool_calls=[ToolCall("xcode_build", {"scheme": "MyApp"})]),
              Turn(text="Xcode is not available here.")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--provider", "anthropic", "--prompt", "Build the app",
                       "--approval-mode", "full-auto", cwd=ios_project,
                       env=_env(fake, {"AIAGENT_APPLE_PLATFORM": "linux"}))
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    offered = _offered(sent[0])
    macos_only = {"xcode_build", "xcode_test", "xcode_archive", "xcode_clean", "xcode_export",
                  "codesign_verify", "xcrun"}
    assert "read_file" in offered and not any(n.startswith("sim_") or n in macos_only for n in offered)
    # what reads files or runs `swift` is the skill's too, and is offered on Linux
    assert {"xcode_project_info", "xcode_assets", "swift_build", "codesign_doctor"} <= set(offered)
    assert _tool_results(sent[1])[0].startswith("unknown tool 'xcode_build'")
