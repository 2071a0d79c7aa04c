"""Fake `xcodebuild`, `xcrun` and `ditto` on PATH (fake_apple.py replaying fixtures), and
the macOS path of the gating switched on with AIAGENT_APPLE_PLATFORM=darwin."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from apple_harness import path_with

FAKE = Path(__file__).resolve().parent / "fake_apple.py"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


class FakeApple:
    def __init__(self, root: Path) -> None:
        self.state = root / "state"
        self.bin = root / "bin"
        self.state.mkdir(parents=True)
        self.bin.mkdir()
        for name in ("xcodebuild", "xcrun", "ditto"):
            script = self.bin / name
            script.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(FAKE.parent)!r})\n"
                              f"import fake_apple\nsys.exit(fake_apple.main({name!r}))\n")
            script.chmod(0o755)

    def scenario(self, **values: object) -> None:
        (self.state / "scenario.json").write_text(json.dumps(values))

    def calls(self) -> list[list[str]]:
        path = self.state / "calls.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def env(self) -> dict[str, str]:
        return {"PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
                "FAKE_APPLE_DIR": str(self.state), "AIAGENT_APPLE_PLATFORM": "darwin"}


@pytest.fixture
def fake_apple(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeApple:
    fake = FakeApple(tmp_path / "fake-apple")
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    return fake


@pytest.fixture
def ios_project(tmp_path: Path) -> Path:
    """A workspace with MyApp.xcodeproj and a Swift file (what the fakes and the apple-dev
    skill's file triggers need)."""
    root = tmp_path / "proj"
    (root / "MyApp.xcodeproj").mkdir(parents=True)
    (root / "MyApp.xcodeproj" / "project.pbxproj").write_text("// !$*UTF8*$!\n{ archiveVersion = 1; }\n")
    (root / "MyApp.xcworkspace").mkdir()
    (root / "MyApp").mkdir()
    (root / "MyApp" / "ContentView.swift").write_text("import SwiftUI\n")
    return root


Fixture = Callable[[str], str]


@pytest.fixture()
def fake_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding only our fakes before the system's (discovery, signing, swift)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", path_with(bin_dir))
    return bin_dir
