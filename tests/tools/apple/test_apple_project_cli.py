"""The project-side Apple tools through the real `aiagent tools run` (what the model gets),
on the example iOS app and a Swift package made here; and how they are offered on Linux."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "ios-app"
PACKAGE = '''// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Kit",
    dependencies: [
    ],
    targets: [
        .target(name: "Kit"),
    ]
)
'''


def tools_run(cwd: Path, env: dict[str, str], name: str, args: dict[str, object] | None = None,
              ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([AIAGENT, "tools", "run", name, "--args", json.dumps(args or {})], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture
def app(tmp_path: Path) -> Path:
    target = tmp_path / "ios-app"
    shutil.copytree(EXAMPLE, target)
    return target


def test_project_assets_and_models_of_the_example(app: Path, clean_env: dict[str, str]) -> None:
    info = json.loads(tools_run(app, clean_env, "xcode_project_info").stdout)
    project = info["projects"][0]
    assert project["path"] == "NotesApp.xcodeproj"
    assert {t["name"] for t in project["targets"]} >= {"NotesApp", "NotesAppTests"}
    assets = json.loads(tools_run(app, clean_env, "xcode_assets").stdout)
    catalog = assets["catalogs"][0]
    assert catalog["app_icons"][0]["missing_sizes"] == ["iphone 60pt@3x"]
    assert "UnusedBanner" in json.dumps(assets["unused"]) and "Logo" not in json.dumps(assets["unused"])
    models = json.loads(tools_run(app, clean_env, "xcode_data_model").stdout)
    assert len(models["core_data"][0]["versions"]) == 2


def test_swift_add_dep_edits_the_manifest(tmp_path: Path, clean_env: dict[str, str]) -> None:
    (tmp_path / "Package.swift").write_text(PACKAGE)
    proc = tools_run(tmp_path, clean_env, "swift_add_dep",
                     {"url": "https://github.com/apple/swift-log.git", "version": "1.5.0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '.package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),' in \
        (tmp_path / "Package.swift").read_text()
    hostile = tools_run(tmp_path, clean_env, "swift_add_dep",
                        {"url": 'https://x.y/a.git"), .package(path: "/etc', "version": "1.0.0"})
    assert hostile.returncode == 1 and "is not a git URL" in hostile.stdout
    assert ".package(path:" not in (tmp_path / "Package.swift").read_text()


def test_on_linux_the_macos_only_ones_are_not_offered(tmp_path: Path, clean_env: dict[str, str]) -> None:
    env = {**clean_env, "AIAGENT_APPLE_PLATFORM": "linux"}
    listing = subprocess.run([AIAGENT, "tools", "list"], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=60).stdout
    from aiagent.agent.tools.apple.gating import offered

    names = ["xcode_project_info", "xcode_assets", "codesign_doctor", "swift_build", "codesign_verify",
             "xcode_build"]
    assert offered(names, "linux") == names[:4]
    assert "xcode_project_info" in listing and "swift_add_dep" in listing
