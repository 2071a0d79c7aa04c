"""Every Xcode-side Apple tool through one real headless run against FakeLLM (the macOS path,
with fake `xcodebuild`/`xcrun`/`ditto` replaying recorded output): what each returns reaches
the model as structure, and each ran the command it should."""

from __future__ import annotations

import json
from pathlib import Path

from apple_harness import tool_results

from aiagent.testing import FakeLLM, ToolCall, Turn

IPHONE16 = "7B1F2E3A-6C1D-4C22-9E0B-1A2B3C4D5E6F"
CALLS = [
    ("sim_list", {"runtime": "iOS 18.1"}),
    ("sim_boot", {"device_name": "iPhone 16 Pro"}),
    ("sim_shutdown", {"device_name": "iPhone 16 Pro"}),
    ("xcode_clean", {"scheme": "MyApp"}),
    ("xcode_archive", {"scheme": "MyApp"}),
    ("xcode_export", {"archive_path": "build/MyApp.xcarchive", "export_options_plist": "ExportOptions.plist",
                      "notarize": True, "keychain_profile": "AC_NOTARY"}),
    ("sim_install", {"app_path": "build/MyApp.app"}),
    ("sim_launch", {"bundle_id": "com.example.MyApp"}),
    ("sim_screenshot", {"output_path": "shot.png"}),
    ("sim_record", {"output_path": "run.mp4", "seconds": 1}),
    ("sim_log", {"predicate": 'subsystem == "com.example.MyApp"', "last_minutes": 2}),
    ("xcrun", {"tool": "swift-demangle", "symbols": ["$s4main3FooV"]}),
]


def test_the_model_calls_every_xcode_tool(run_cli, fake_apple, ios_project: Path) -> None:
    fake_apple.scenario(xcodebuild="build_succeeded_warnings_xcode16.log", booted=[IPHONE16])
    (ios_project / "build/MyApp.xcarchive").mkdir(parents=True)
    (ios_project / "build/MyApp.app").mkdir(parents=True)
    (ios_project / "ExportOptions.plist").write_text("<plist/>")
    script = [Turn(text=f"Calling {name}.", tool_calls=[ToolCall(name, args)]) for name, args in CALLS]
    script.append(Turn(text="All done."))
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--provider", "anthropic", "--prompt", "Ship it",
                       "--approval-mode", "full-auto", cwd=ios_project, timeout=240,
                       env={"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456",
                            **fake_apple.env()})
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "All done."
    assert {name for name, _ in CALLS} <= {t["name"] for t in sent[0]["json"]["tools"]}
    results = dict(zip([name for name, _ in CALLS], tool_results(sent[-1]), strict=True))
    for name, (text, is_error) in results.items():
        assert not is_error, (name, text)
    payload = {name: json.loads(text) for name, (text, _) in results.items()}
    assert [d["name"] for d in payload["sim_list"]["devices"]][:2] == ["iPad Pro 11-inch (M4)", "iPhone 16"]
    assert payload["xcode_export"]["notarization"]["status"] == "Accepted"
    assert payload["sim_launch"]["pid"] == 4242
    assert (payload["sim_screenshot"]["width"], payload["sim_screenshot"]["height"]) == (2, 3)
    assert payload["sim_log"]["lines"] == 4 and payload["xcrun"]["output"] == "main.Foo"
    ran = [" ".join(c[:3]) for c in fake_apple.calls()]
    for expected in ("xcrun simctl boot", "xcrun simctl shutdown", "xcrun notarytool submit",
                     "xcrun stapler staple", "xcrun simctl install", "xcrun simctl launch",
                     "xcrun simctl io", "xcrun simctl spawn"):
        assert any(r.startswith(expected) for r in ran), (expected, ran)
    assert any(c[0] == "xcodebuild" and c[-1] == "archive" for c in fake_apple.calls())
    assert any(c[0] == "xcodebuild" and c[-1] == "clean" for c in fake_apple.calls())
