"""The signing and Swift package tools through the real `aiagent tools run` (the others are
in test_apple_tools_cli.py and test_apple_project_cli.py), with fake `swift` and `codesign`
on PATH replaying recorded output."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from apple_harness import EXAMPLE, KIT_PACKAGE, calls, replay
from test_apple_signing import DISPLAY

AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def run(cwd: Path, bin_dir: Path, name: str, args: dict, platform: str = "linux") -> tuple[int, str]:
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "AIAGENT_APPLE_PLATFORM": platform}
    done = subprocess.run([AIAGENT, "tools", "run", name, "--args", json.dumps(args), "--cwd", str(cwd)],
                          capture_output=True, text=True, timeout=120, env=env)
    return done.returncode, done.stdout


def test_swift_package_tools(tmp_path: Path) -> None:
    (tmp_path / "Package.swift").write_text(KIT_PACKAGE)
    bin_dir = tmp_path / "bin"
    replay(bin_dir, "swift", {"build": (1, "", "@swift_build_errors.txt"),
                              "test": (1, "@swift_test_linux.txt", ""),
                              "package resolve": (0, "Fetching https://github.com/apple/swift-log.git\n", "")})
    code, out = run(tmp_path, bin_dir, "swift_build", {})
    assert code == 1 and json.loads(out)["errors"], out
    code, out = run(tmp_path, bin_dir, "swift_test", {})
    assert code == 1 and "failed" in out
    code, out = run(tmp_path, bin_dir, "swift_resolve", {})
    assert code == 0, out
    assert [c[0] for c in calls(bin_dir, "swift")] == ["build", "test", "package"]
    code, out = run(tmp_path, bin_dir, "swift_remove_dep", {"package": "swift-log"})
    assert code == 0 and "swift-log" not in (tmp_path / "Package.swift").read_text()
    code, out = run(tmp_path, bin_dir, "swift_remove_dep", {"package": "swift-log"})
    assert code == 1  # nothing left to remove: an error the model reads


def test_signing_tools(tmp_path: Path) -> None:
    app = tmp_path / "ios-app"
    shutil.copytree(EXAMPLE, app)
    bin_dir = tmp_path / "bin"
    code, out = run(app, bin_dir, "codesign_info", {"query": "profiles"})
    assert code == 0 and json.loads(out) == {"profiles": [], "errors": []}
    code, out = run(app, bin_dir, "codesign_doctor", {})
    assert code == 0 and json.loads(out)["bundle_id"] == "com.example.notes"
    bundle = app / "build" / "NotesApp.app"
    bundle.mkdir(parents=True)
    (bundle / "NotesApp").write_bytes(b"\xcf\xfa\xed\xfe")
    replay(bin_dir, "codesign", {"--verify": (0, "", f"{bundle}: valid on disk\n"), "-dv": (0, "", DISPLAY)})
    code, out = run(app, bin_dir, "codesign_verify", {"app_path": "build/NotesApp.app"}, platform="darwin")
    assert code == 0 and json.loads(out)["valid"] is True, out
    assert calls(bin_dir, "codesign")[0][:2] == ["--verify", "--strict"]
