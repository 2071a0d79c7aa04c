"""Discovery (FR-6.1): the OpenStep reader, project.pbxproj, schemes, workspaces,
Package.swift, ``xcodebuild -list -json`` through a fake xcodebuild, and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from apple_harness import EXAMPLE, calls, copy_example, err, ok_json, replay

from aiagent.agent.tools.apple.asciiplist import MAX_DEPTH, PlistError, loads


def test_reader_golden() -> None:
    text = ('// !$*UTF8*$!\n{ a = 1; /* one */ /* two */ /* three */ b = (x, "y z", ); '
            'c = {d = e; f = ();}; g = <0a0b>; h = "q\\\\"; i = "a\\"b\\n\\U00e9"; j = $(SRCROOT)/x; }')
    with pytest.raises(PlistError):
        loads(text)  # '$(' is not an unquoted character: Xcode quotes such values
    text = text.replace("$(SRCROOT)/x", '"$(SRCROOT)/x"')
    assert loads(text) == {"a": "1", "b": ["x", "y z"], "c": {"d": "e", "f": []}, "g": b"\n\x0b",
                           "h": "q\\", "i": 'a"b\né', "j": "$(SRCROOT)/x"}


@pytest.mark.parametrize(("text", "message"), [
    ("{ a = 1; b = (", "line 1: file ends"),
    ("{ a = 1;\n b = 2;\n c = 3 }", "line 3: expected ';' after the value of 'c'"),
    ("garbage ;;; {", "unexpected ';' after the top-level value"),
    ("{a = \"open;}", "unterminated quoted string"),
    ("{a = b;}\n/* never closed", "line 2: unterminated /* comment"),
    ("", "empty file"),
    ("{a = #;}", "unexpected '#'"),
])
def test_reader_rejects_bad_text_with_a_line(text: str, message: str) -> None:
    with pytest.raises(PlistError) as info:
        loads(text)
    assert message in str(info.value)


def test_reader_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(PlistError, match=f"nested deeper than {MAX_DEPTH}"):
        loads("{a=" * 1_000_000)
    with pytest.raises(PlistError, match="nested deeper"):
        loads("(" * 1_000_000)
    assert loads("{a=" * 50 + "x;" + "};" * 49 + "}")  # legitimate depth still parses


def test_example_project_is_described(tmp_path: Path) -> None:
    info = ok_json(EXAMPLE, "xcode_project_info", {})
    (project,) = info["projects"]
    assert project["path"] == "NotesApp.xcodeproj" and project["configurations"] == ["Debug", "Release"]
    app, tests = project["targets"]
    assert (app["name"], app["product_type"], app["platforms"]) == ("NotesApp", "application", ["iOS"])
    assert app["deployment_targets"] == {"iOS": "17.0"}
    assert app["configurations"]["Release"]["PRODUCT_BUNDLE_IDENTIFIER"] == "com.example.notes"
    assert [p["kind"] for p in app["build_phases"]] == ["sources", "frameworks", "resources", "run script"]
    assert app["build_phases"][0]["files"] == 5 and app["package_products"] == ["Collections"]
    assert tests["product_type"] == "bundle.unit-test" and tests["dependencies"] == ["NotesApp"]
    assert project["packages"] == [{"url": "https://github.com/apple/swift-collections.git",
                                    "requirement": {"kind": "upToNextMajorVersion", "minimumVersion": "1.1.0"}}]
    (scheme,) = project["schemes"]
    assert scheme["name"] == "NotesApp" and scheme["shared"]
    assert [t["target"] for t in scheme["build_targets"]] == ["NotesApp"]
    assert [t["target"] for t in scheme["test_targets"]] == ["NotesAppTests"]
    assert scheme["configurations"] == {"TestAction": "Debug", "LaunchAction": "Debug", "ArchiveAction": "Release"}
    assert "problems" in project and project["problems"] == [] and "scheme_errors" not in project


def test_scheme_filter_and_missing_scheme() -> None:
    info = ok_json(EXAMPLE, "xcode_project_info", {"scheme": "NotesApp"})
    assert [s["name"] for s in info["projects"][0]["schemes"]] == ["NotesApp"]
    message = err(EXAMPLE, "xcode_project_info", {"scheme": "Nope"})
    assert message == "scheme 'Nope' does not exist; schemes: NotesApp"


def test_fake_xcodebuild_list_is_used(tmp_path: Path, fake_bin: Path) -> None:
    listing = {"project": {"configurations": ["Debug", "Release"], "name": "NotesApp",
                           "schemes": ["NotesApp", "NotesApp (Staging)"], "targets": ["NotesApp", "NotesAppTests"]}}
    replay(fake_bin, "xcodebuild", {"-list -json": (0, "Command line invocation:\n" + json.dumps(listing), "")})
    info = ok_json(EXAMPLE, "xcode_project_info", {})
    assert info["projects"][0]["xcodebuild"]["schemes"] == ["NotesApp", "NotesApp (Staging)"]
    assert calls(fake_bin, "xcodebuild") == [["-list", "-json", "-project", "NotesApp.xcodeproj"]]
    # a scheme only xcodebuild knows (not shared) is accepted by the filter
    assert ok_json(EXAMPLE, "xcode_project_info", {"scheme": "NotesApp (Staging)"})


def test_failing_xcodebuild_is_reported_not_fatal(fake_bin: Path) -> None:
    replay(fake_bin, "xcodebuild", {"-list": (1, "", "xcode-select: error: tool 'xcodebuild' requires Xcode, "
                                                "but active developer directory is a command line tools instance\n")})
    info = ok_json(EXAMPLE, "xcode_project_info", {})
    assert "requires Xcode" in info["projects"][0]["xcodebuild"]["error"]
    assert info["projects"][0]["targets"]  # the file-based discovery still answered


def _second_project(root: Path, pbxproj: str) -> None:
    broken = root / "Broken.xcodeproj"
    broken.mkdir()
    (broken / "project.pbxproj").write_text(pbxproj)


@pytest.mark.parametrize(("content", "expected"), [
    ("// !$*UTF8*$!\n{\n\tarchiveVersion = 1;\n\tobjects = {\n\t\tAB = {isa = PBXProject;", "file ends"),
    ("\x00\x01garbage\xff", "not a valid project file"),
    ("{a=" * 200_000, "nested deeper"),
    ("{ archiveVersion = 1; }", "not a project file (no objects / rootObject)"),
])
def test_broken_pbxproj_is_named_and_the_good_project_still_works(tmp_path: Path, content: str, expected: str) -> None:
    root = copy_example(tmp_path)
    _second_project(root, content)
    info = ok_json(root, "xcode_project_info", {})
    broken = next(p for p in info["projects"] if p["path"] == "Broken.xcodeproj")
    assert broken["error"].startswith("Broken.xcodeproj/project.pbxproj: ") and expected in broken["error"]
    good = next(p for p in info["projects"] if p["path"] == "NotesApp.xcodeproj")
    assert [t["name"] for t in good["targets"]] == ["NotesApp", "NotesAppTests"]


def test_huge_pbxproj_is_refused_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aiagent.agent.tools.apple import asciiplist

    root = copy_example(tmp_path)
    _second_project(root, "{ objects = {}; rootObject = X; }" + " " * 4096)
    monkeypatch.setattr(asciiplist, "MAX_BYTES", 1024)
    info = ok_json(root, "xcode_project_info", {"path": "Broken.xcodeproj"})
    assert "larger than" in info["projects"][0]["error"]


def test_dangling_references_are_problems(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    pbx = root / "NotesApp.xcodeproj" / "project.pbxproj"
    pbx.write_text(pbx.read_text().replace("A10000000000000000000603 /* Resources */,", "DEADBEEF,"))
    project = ok_json(root, "xcode_project_info", {})["projects"][0]
    assert project["problems"] == ["object DEADBEEF is referenced but not defined"]


@pytest.mark.parametrize(("xml", "expected"), [
    ("<Scheme><BuildAction>", "not valid XML"),
    ('<?xml version="1.0"?><!DOCTYPE s [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><Scheme>&b;</Scheme>',
     "refused"),
    ('<?xml version="1.0"?><!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]><Scheme>&x;</Scheme>', "refused"),
    ("<NotAScheme/>", "not a scheme"),
])
def test_bad_scheme_is_named_and_others_still_read(tmp_path: Path, xml: str, expected: str) -> None:
    root = copy_example(tmp_path)
    schemes = root / "NotesApp.xcodeproj" / "xcshareddata" / "xcschemes"
    (schemes / "Bad.xcscheme").write_text(xml)
    project = ok_json(root, "xcode_project_info", {})["projects"][0]
    (problem,) = project["scheme_errors"]
    assert problem.startswith("NotesApp.xcodeproj/xcshareddata/xcschemes/Bad.xcscheme: ") and expected in problem
    assert [s["name"] for s in project["schemes"]] == ["NotesApp"]
    assert "root:" not in json.dumps(project)  # no entity was expanded


def test_scheme_pointing_at_a_missing_target(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    scheme = root / "NotesApp.xcodeproj/xcshareddata/xcschemes/NotesApp.xcscheme"
    scheme.write_text(scheme.read_text().replace("A10000000000000000000020", "FFFFFFFFFFFFFFFFFFFFFFFF"))
    project = ok_json(root, "xcode_project_info", {})["projects"][0]
    assert project["scheme_errors"] == ["scheme NotesApp: target NotesAppTests (FFFFFFFFFFFFFFFFFFFFFFFF) "
                                        "is not in the project"]


def test_workspace_and_package_are_found(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    ws = root / "Notes.xcworkspace"
    ws.mkdir()
    (ws / "contents.xcworkspacedata").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Workspace version="1.0">\n'
        '<FileRef location="group:NotesApp.xcodeproj"></FileRef>\n<FileRef location="group:Kit"></FileRef>\n</Workspace>\n')
    kit = root / "Kit"
    kit.mkdir()
    (kit / "Package.swift").write_text(
        '// swift-tools-version:5.9\nimport PackageDescription\n\nlet package = Package(\n    name: "Kit",\n'
        '    products: [.library(name: "Kit", targets: ["Kit"])],\n    dependencies: [\n'
        '        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),\n    ],\n'
        '    targets: [.target(name: "Kit", dependencies: [.product(name: "Logging", package: "swift-log")])]\n)\n')
    info = ok_json(root, "xcode_project_info", {})
    assert info["workspaces"][0]["projects"] == ["NotesApp.xcodeproj", "Kit"]
    (package,) = info["packages"]
    assert package["path"] == "Kit/Package.swift" and package["name"] == "Kit" and package["tools_version"] == "5.9"
    assert package["dependencies"][0]["identity"] == "swift-log"
    assert package["targets"] == [{"kind": "target", "name": "Kit",
                                   "dependencies": ['.product(name: "Logging", package: "swift-log")']}]


def test_nothing_to_find_and_outside_workspace(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert err(tmp_path / "empty", "xcode_project_info", {}) == "no .xcodeproj, .xcworkspace or Package.swift under ."
    assert "outside" in err(tmp_path / "empty", "xcode_project_info", {"path": str(EXAMPLE)}).lower()
    shutil.rmtree(tmp_path / "empty")
