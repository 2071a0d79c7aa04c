"""Each Apple tool end to end through the real `aiagent tools run`, against fake
`xcodebuild`/`xcrun` executables replaying recorded outputs; the fakes record their argv,
so the exact command lines are asserted too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
IPHONE16 = "7B1F2E3A-6C1D-4C22-9E0B-1A2B3C4D5E6F"
IPHONE15 = "9A8B7C6D-AAAA-BBBB-CCCC-DDDDEEEEFFFF"


def run(cwd: Path, name: str, args: dict, env: dict[str, str]) -> tuple[int, str, str]:
    done = subprocess.run([AIAGENT, "tools", "run", name, "--args", json.dumps(args), "--cwd", str(cwd)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, **env})
    return done.returncode, done.stdout, done.stderr


def payload(out: str) -> dict:
    return json.loads(out)


def test_xcode_build_failure_is_structured_and_the_command_exact(fake_apple, ios_project) -> None:
    fake_apple.scenario(xcodebuild="build_compile_errors_xcode15.log", xcodebuild_exit=65)
    code, out, _ = run(ios_project, "xcode_build", {"project": "MyApp.xcodeproj", "scheme": "MyApp"}, fake_apple.env())
    assert code == 1
    result = payload(out)
    assert result["status"] == "failed" and result["exit_code"] == 65
    assert result["errors"][0]["message"] == "cannot find 'greting' in scope"
    assert result["destination"] == f"platform=iOS Simulator,id={IPHONE16}"  # newest iOS, an iPhone
    assert "iPhone 16 (iOS 18.1, Shutdown)" in result["destination_chosen"]
    calls = fake_apple.calls()
    assert calls[0] == ["xcrun", "simctl", "list", "-j"]
    assert calls[1] == ["xcodebuild", "-project", str(ios_project / "MyApp.xcodeproj"), "-scheme", "MyApp",
                        "-configuration", "Debug", "-destination", f"platform=iOS Simulator,id={IPHONE16}", "build"]


def test_xcode_build_success_with_given_destination(fake_apple, ios_project) -> None:
    fake_apple.scenario(xcodebuild="build_succeeded_warnings_xcode16.log")
    dest = "platform=iOS Simulator,name=iPhone 15,OS=17.5"
    code, out, _ = run(ios_project, "xcode_build", {"workspace": "MyApp.xcworkspace", "scheme": "MyApp",
                                                    "destination": dest, "configuration": "Release",
                                                    "extra_args": ["CODE_SIGNING_ALLOWED=NO"]}, fake_apple.env())
    assert code == 0, out
    result = payload(out)
    assert result["status"] == "succeeded" and result["summary"] == "BUILD SUCCEEDED: 0 errors, 2 warnings"
    assert fake_apple.calls()[-1] == ["xcodebuild", "-workspace", str(ios_project / "MyApp.xcworkspace"),
                                      "-scheme", "MyApp", "-configuration", "Release", "-destination", dest,
                                      "CODE_SIGNING_ALLOWED=NO", "build"]


def test_unknown_simulator_destination_is_refused_before_building(fake_apple, ios_project) -> None:
    code, out, _ = run(ios_project, "xcode_build", {"scheme": "MyApp",
                                                    "destination": "platform=iOS Simulator,name=iPhone 99"}, fake_apple.env())
    assert code == 1
    assert out.startswith("no simulator named 'iPhone 99'; available: ")
    assert "iPhone 16 (iOS 18.1, Shutdown)" in out
    assert all(c[0] != "xcodebuild" for c in fake_apple.calls())
    # the same simulator with a runtime it does not have
    code, out, _ = run(ios_project, "xcode_build", {"scheme": "MyApp",
                                                    "destination": "platform=iOS Simulator,name=iPhone 15,OS=18.1"}, fake_apple.env())
    assert code == 1 and "iPhone 15 has no 18.1 runtime" in out


def test_missing_scheme_lists_the_schemes(fake_apple, ios_project) -> None:
    fake_apple.scenario(xcodebuild="build_bad_scheme.log", xcodebuild_exit=65)
    code, out, _ = run(ios_project, "xcode_build", {"project": "MyApp.xcodeproj", "scheme": "Nope"}, fake_apple.env())
    assert code == 1
    result = payload(out)
    assert result["available_schemes"] == ["MyApp", "MyAppWidget"]
    assert result["summary"].endswith("scheme 'Nope' does not exist; use one of: MyApp, MyAppWidget")
    assert fake_apple.calls()[-1] == ["xcodebuild", "-list", "-json", "-project", str(ios_project / "MyApp.xcodeproj")]


def test_bad_container_arguments(fake_apple, ios_project) -> None:
    env = fake_apple.env()
    code, out, _ = run(ios_project, "xcode_build", {"project": "MyApp.xcodeproj", "workspace": "MyApp.xcworkspace",
                                                    "scheme": "MyApp"}, env)
    assert (code, out.strip()) == (1, "give workspace or project, not both")
    code, out, _ = run(ios_project, "xcode_build", {"project": "Other.xcodeproj", "scheme": "MyApp"}, env)
    assert (code, out.strip()) == (1, "project Other.xcodeproj: no such .xcodeproj in the workspace")
    code, out, _ = run(ios_project, "xcode_build", {"scheme": "-showBuildSettings"}, env)
    assert code == 1 and "not a scheme name" in out


def test_xcode_test_reads_log_and_result_bundle(fake_apple, ios_project) -> None:
    fake_apple.scenario(xcodebuild="test_xctest_xcode15.log", xcodebuild_exit=65)
    code, out, _ = run(ios_project, "xcode_test", {"scheme": "MyApp"}, fake_apple.env())
    result = payload(out)
    assert code == 1 and result["tests"]["failed"] == 1 and result["action"] == "test"
    assert fake_apple.calls()[-1][-1] == "test"
    args = {"scheme": "MyApp", "extra_args": ["-resultBundlePath", "build/MyApp.xcresult"]}
    code, out, _ = run(ios_project, "xcode_test", args, fake_apple.env())
    result = payload(out)
    assert result["tests"]["source"] == "xcresult" and result["tests"]["failures"][0]["line"] == 25
    assert result["tests_from_log"]["failed"] == 1
    assert fake_apple.calls()[-2:] == [
        ["xcrun", "xcresulttool", "get", "test-results", "summary", "--path", str(ios_project / "build/MyApp.xcresult")],
        ["xcrun", "xcresulttool", "get", "test-results", "tests", "--path", str(ios_project / "build/MyApp.xcresult")]]


def test_xcode_test_legacy_result_bundle(fake_apple, ios_project) -> None:
    fake_apple.scenario(xcodebuild="test_xctest_xcode15.log", xcodebuild_exit=65, legacy_xcresult=True)
    args = {"scheme": "MyApp", "extra_args": ["-resultBundlePath", "build/Old.xcresult"]}
    _code, out, _ = run(ios_project, "xcode_test", args, fake_apple.env())
    tests = payload(out)["tests"]
    assert tests["source"] == "xcresult (legacy)" and tests["failures"][0]["line"] == 25
    assert fake_apple.calls()[-1][:5] == ["xcrun", "xcresulttool", "get", "object", "--legacy"]


def test_xcode_archive_and_clean(fake_apple, ios_project) -> None:
    fake_apple.scenario(xcodebuild="build_signing_errors.log", xcodebuild_exit=65)
    code, out, _ = run(ios_project, "xcode_archive", {"scheme": "MyApp"}, fake_apple.env())
    result = payload(out)
    assert code == 1 and {e["kind"] for e in result["errors"]} == {"signing"}
    assert fake_apple.calls()[-1] == ["xcodebuild", "-scheme", "MyApp", "-configuration", "Debug",
                                      "-destination", "generic/platform=iOS", "-archivePath",
                                      str(ios_project / "build/MyApp.xcarchive"), "archive"]
    fake_apple.scenario(xcodebuild="build_succeeded_warnings_xcode16.log")
    code, out, _ = run(ios_project, "xcode_clean", {"scheme": "MyApp"}, fake_apple.env())
    assert code == 0 and fake_apple.calls()[-1] == ["xcodebuild", "-scheme", "MyApp", "-configuration", "Debug", "clean"]


def test_xcode_export_with_notarisation(fake_apple, ios_project) -> None:
    (ios_project / "build/MyApp.xcarchive").mkdir(parents=True)
    (ios_project / "ExportOptions.plist").write_text("<plist/>")
    args = {"archive_path": "build/MyApp.xcarchive", "export_options_plist": "ExportOptions.plist",
            "notarize": True, "keychain_profile": "AC_NOTARY"}
    code, out, _ = run(ios_project, "xcode_export", args, fake_apple.env())
    result = payload(out)
    assert code == 0, out
    assert result["notarization"]["status"] == "Accepted" and result["notarization"]["stapled"] is True
    export = ios_project / "build/export"
    assert fake_apple.calls() == [
        ["xcodebuild", "-exportArchive", "-archivePath", str(ios_project / "build/MyApp.xcarchive"),
         "-exportOptionsPlist", str(ios_project / "ExportOptions.plist"), "-exportPath", str(export)],
        ["ditto", "-c", "-k", "--keepParent", str(export / "MyApp.app"), str(export / "MyApp.zip")],
        ["xcrun", "notarytool", "submit", str(export / "MyApp.zip"), "--keychain-profile", "AC_NOTARY",
         "--wait", "--output-format", "json"],
        ["xcrun", "stapler", "staple", str(export / "MyApp.app")]]
    fake_apple.scenario(notary="Invalid")
    code, out, _ = run(ios_project, "xcode_export", args, fake_apple.env())
    assert code == 1 and "xcrun notarytool log 2efe2717" in payload(out)["notarization"]["hint"]


def test_sim_list_filters(fake_apple, ios_project) -> None:
    code, out, _ = run(ios_project, "sim_list", {"runtime": "iOS 18.1"}, fake_apple.env())
    names = [d["name"] for d in payload(out)["devices"]]
    assert code == 0 and names == ["iPad Pro 11-inch (M4)", "iPhone 16", "iPhone 16 Pro"]
    fake_apple.scenario(booted=[IPHONE15])
    _code, out, _ = run(ios_project, "sim_list", {"state": "Booted"}, fake_apple.env())
    assert [d["udid"] for d in payload(out)["devices"]] == [IPHONE15]


def test_sim_boot_shutdown_and_unknown_name(fake_apple, ios_project) -> None:
    code, out, _ = run(ios_project, "sim_boot", {"device_name": "iPhone 16 Pro"}, fake_apple.env())
    assert code == 0 and payload(out)["udid"] == "3C2B1A09-1234-4321-ABCD-0123456789AB"
    assert fake_apple.calls()[-1] == ["xcrun", "simctl", "boot", "3C2B1A09-1234-4321-ABCD-0123456789AB"]
    fake_apple.scenario(booted=[IPHONE15])
    code, out, _ = run(ios_project, "sim_boot", {"device_udid": IPHONE15}, fake_apple.env())
    assert code == 0 and payload(out)["was_booted"] is True  # "already booted" is not a failure
    code, out, _ = run(ios_project, "sim_shutdown", {}, fake_apple.env())
    assert code == 0 and fake_apple.calls()[-1] == ["xcrun", "simctl", "shutdown", IPHONE15]
    code, out, _ = run(ios_project, "sim_boot", {"device_name": "iPhone 99"}, fake_apple.env())
    assert code == 1 and out.startswith("no simulator named 'iPhone 99'; available: ")


def test_sim_install_launch_need_a_booted_device(fake_apple, ios_project) -> None:
    (ios_project / "build/MyApp.app").mkdir(parents=True)
    code, out, _ = run(ios_project, "sim_install", {"app_path": "build/MyApp.app"}, fake_apple.env())
    assert code == 1 and out.startswith("no simulator is booted: boot one with sim_boot")
    fake_apple.scenario(booted=[IPHONE16])
    code, out, _ = run(ios_project, "sim_install", {"app_path": "build/MyApp.app"}, fake_apple.env())
    assert code == 0 and fake_apple.calls()[-1] == ["xcrun", "simctl", "install", IPHONE16, str(ios_project / "build/MyApp.app")]
    code, out, _ = run(ios_project, "sim_launch", {"bundle_id": "com.example.MyApp"}, fake_apple.env())
    assert code == 0 and payload(out)["pid"] == 4242
    code, out, _ = run(ios_project, "sim_launch", {"bundle_id": "--terminate-running-process"}, fake_apple.env())
    assert code == 1 and "not a bundle identifier" in out
    code, out, _ = run(ios_project, "sim_install", {"app_path": "MyApp.xcodeproj"}, fake_apple.env())
    assert code == 1 and "not an .app bundle" in out


def test_sim_screenshot_record_and_log(fake_apple, ios_project) -> None:
    fake_apple.scenario(booted=[IPHONE16])
    code, out, _ = run(ios_project, "sim_screenshot", {"output_path": "shot.png"}, fake_apple.env())
    result = payload(out)
    assert code == 0 and (result["width"], result["height"]) == (2, 3)
    assert fake_apple.calls()[-1] == ["xcrun", "simctl", "io", IPHONE16, "screenshot", str(ios_project / "shot.png")]
    code, out, _ = run(ios_project, "sim_record", {"output_path": "run.mp4", "seconds": 1}, fake_apple.env())
    assert code == 0, out
    assert payload(out)["bytes"] > 0 and (ios_project / "run.mp4").is_file()
    assert fake_apple.calls()[-1][4:] == ["recordVideo", "--codec=h264", "--force", str(ios_project / "run.mp4")]
    predicate = 'subsystem == "com.example.MyApp"'
    code, out, _ = run(ios_project, "sim_log", {"predicate": predicate, "last_minutes": 2}, fake_apple.env())
    result = payload(out)
    assert code == 0 and "request failed" in result["log"] and result["lines"] == 4
    assert fake_apple.calls()[-1] == ["xcrun", "simctl", "spawn", IPHONE16, "log", "show", "--style", "compact",
                                      "--last", "2m", "--predicate", predicate]


def test_xcrun_allow_list(fake_apple, ios_project) -> None:
    code, out, _ = run(ios_project, "xcrun", {"tool": "swift-demangle", "symbols": ["$s4main3FooV"]}, fake_apple.env())
    assert code == 0 and payload(out)["output"] == "main.Foo"
    (ios_project / "MyApp.bin").write_bytes(b"\x00abc")
    code, out, _ = run(ios_project, "xcrun", {"tool": "strings", "path": "MyApp.bin"}, fake_apple.env())
    assert code == 0 and fake_apple.calls()[-1] == ["xcrun", "strings", "-a", "--", str(ios_project / "MyApp.bin")]
    code, out, _ = run(ios_project, "xcrun", {"tool": "xctrace", "list": "templates"}, fake_apple.env())
    assert code == 0 and "Time Profiler" in payload(out)["output"]
    code, out, _ = run(ios_project, "xcrun", {"tool": "altool"}, fake_apple.env())
    assert code == 1 and out.startswith("invalid arguments for xcrun: tool:")
    code, out, _ = run(ios_project, "xcrun", {"tool": "swift-demangle", "symbols": ["-expand"]}, fake_apple.env())
    assert code == 1 and "not options" in out


@pytest.mark.parametrize("name", ["xcode_build", "sim_list", "xcrun"])
def test_gated_on_linux_one_line(ios_project, name: str) -> None:
    env = {"AIAGENT_APPLE_PLATFORM": "linux"}
    code, out, err = run(ios_project, name, {"scheme": "MyApp"} if name == "xcode_build" else
                         {"tool": "xctrace"} if name == "xcrun" else {}, env)
    assert (code, out) == (1, f"{name} needs macOS and Xcode; it is not available on Linux\n")
    assert err == ""


def test_darwin_without_xcode_says_how_to_install(tmp_path, ios_project) -> None:
    env = {"AIAGENT_APPLE_PLATFORM": "darwin", "PATH": str(tmp_path)}
    code, out, _ = run(ios_project, "xcode_build", {"scheme": "MyApp"}, env)
    assert code == 1 and out.startswith("xcode_build needs `xcodebuild`, which is not on PATH: install Xcode")
