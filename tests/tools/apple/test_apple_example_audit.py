"""`aiagent security-audit examples/ios-app`: the engine's Apple checks (Info.plist ATS) and
the SwiftUI/UIKit rules (FR-6.11) on the sample project, through the installed command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from apple_harness import EXAMPLE, copy_example

AIAGENT = Path(sys.executable).parent / "aiagent"


def audit(path: Path) -> list[tuple[str, str, int]]:
    proc = subprocess.run([str(AIAGENT), "security-audit", str(path), "-o", "json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return sorted((f["id"], f["location"]["file"], f["location"]["start_line"])
                  for f in json.loads(proc.stdout)["findings"])


def test_example_audit_finds_the_apple_and_swiftui_issues() -> None:
    assert audit(EXAMPLE) == [
        ("A11Y-BUTTON-001", "NotesApp/ContentView.swift", 16),
        ("APPLE-ATS-002", "NotesApp/Info.plist", 19),
        ("SWIFTUI-DEPRECATED-001", "NotesApp/ContentView.swift", 9),
    ]


def test_fixed_example_is_clean_of_the_swiftui_findings(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    view = root / "NotesApp" / "ContentView.swift"
    view.write_text(view.read_text().replace("NavigationView {", "NavigationStack {").replace(
        '                    Image(systemName: "plus")\n                }\n',
        '                    Image(systemName: "plus")\n                }\n                .accessibilityLabel("New note")\n'))
    assert [f[0] for f in audit(root)] == ["APPLE-ATS-002"]
