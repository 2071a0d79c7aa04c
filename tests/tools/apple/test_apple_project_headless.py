"""Every project-side Apple tool through a real headless run against FakeLLM: the model
calls each one on a copy of examples/ios-app (with a Swift package beside it and a fake
`swift` on PATH), and what comes back to it is the tool's JSON or diff. On Linux these are
offered (they read files or run `swift`), so this runs here as it would on macOS."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from apple_harness import EXAMPLE, KIT_PACKAGE, calls, replay, tool_results

from aiagent.testing import FakeLLM, ToolCall, Turn

CALLS = [
    ("xcode_project_info", {}),
    ("xcode_assets", {}),
    ("xcode_data_model", {}),
    ("codesign_info", {"query": "profiles"}),
    ("codesign_doctor", {}),
    ("swift_build", {"package_path": "Kit"}),
    ("swift_test", {"package_path": "Kit"}),
    ("swift_resolve", {"package_path": "Kit"}),
    ("swift_add_dep", {"package_path": "Kit", "url": "https://github.com/apple/swift-argument-parser.git",
                       "version": "1.3.0"}),
    ("swift_remove_dep", {"package_path": "Kit", "package": "swift-log"}),
]


def test_the_model_calls_every_project_tool(run_cli, tmp_path: Path) -> None:
    app = tmp_path / "ios-app"
    shutil.copytree(EXAMPLE, app)
    (app / "Kit").mkdir()
    (app / "Kit" / "Package.swift").write_text(KIT_PACKAGE)
    bin_dir = tmp_path / "bin"
    replay(bin_dir, "swift", {"build": (0, "@swift_build_ok.txt", ""),
                              "test": (1, "@swift_test_linux.txt", ""),
                              "package resolve": (0, "Fetching https://github.com/apple/swift-log.git\n", "")})
    script = [Turn(text=f"Calling {name}.", tool_calls=[ToolCall(name, args)]) for name, args in CALLS]
    script.append(Turn(text="Looked at everything."))
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--provider", "anthropic", "--prompt", "Look at the project",
                       "--approval-mode", "full-auto", cwd=app,
                       env={"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456",
                            "PATH": f"{bin_dir}:/usr/bin:/bin", "AIAGENT_APPLE_PLATFORM": "linux"},
                       timeout=180)
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Looked at everything."
    offered = {t["name"] for t in sent[0]["json"]["tools"]}
    assert {name for name, _ in CALLS} <= offered and "xcode_build" not in offered  # Linux
    results = tool_results(sent[-1])
    assert len(results) == len(CALLS)
    by_tool = dict(zip([name for name, _ in CALLS], results, strict=True))
    for name in ("xcode_project_info", "xcode_assets", "xcode_data_model", "swift_build", "swift_resolve"):
        text, is_error = by_tool[name]
        assert not is_error, (name, text)
        json.loads(text)  # the model gets the structure
    assert json.loads(by_tool["xcode_project_info"][0])["projects"][0]["path"] == "NotesApp.xcodeproj"
    assert "iphone 60pt@3x" in by_tool["xcode_assets"][0]
    tests = by_tool["swift_test"][0]
    assert '"failed"' in tests or "failed" in tests  # the failing test is reported as structure
    assert by_tool["swift_add_dep"][0].startswith("Updated Kit/Package.swift\n--- a/Kit/Package.swift")
    assert not by_tool["swift_remove_dep"][1], by_tool["swift_remove_dep"][0]
    manifest = (app / "Kit" / "Package.swift").read_text()
    assert "swift-argument-parser" in manifest and "swift-log" not in manifest
    assert [c[0] for c in calls(bin_dir, "swift")] == ["build", "test", "package"]
    assert json.loads(by_tool["codesign_info"][0]) == {"profiles": [], "errors": []}  # none here
    doctor = json.loads(by_tool["codesign_doctor"][0])  # the project's own signing settings
    assert (doctor["bundle_id"], doctor["team_id"]) == ("com.example.notes", "ABCDE12345")
