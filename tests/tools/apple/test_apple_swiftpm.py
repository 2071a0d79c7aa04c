"""Swift Package Manager tools (FR-6.4, FR-6.14): a fake ``swift`` on PATH replays
recorded output (fixtures/*.txt, Swift 5.10/6 spellings on Linux and macOS); the manifest
edits run on real files and are checked byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apple_harness import FIXTURES, call, calls, err, replay

from aiagent.agent.tools.apple import swift_output

MANIFEST = '''// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Kit",
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [
        .library(name: "Kit", targets: ["Kit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"), // logging
    ],
    targets: [
        .target(name: "Kit", dependencies: [.product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "KitTests", dependencies: ["Kit"]),
    ]
)
'''


@pytest.fixture()
def package(tmp_path: Path) -> Path:
    root = tmp_path / "Kit"
    root.mkdir()
    (root / "Package.swift").write_text(MANIFEST)
    return root


def run_json(root: Path, name: str, args: dict) -> tuple[bool, dict]:
    result = call(root, name, args)
    return result.is_error, json.loads(result.content)


def test_parser_golden_build_errors() -> None:
    parsed = swift_output.parse((FIXTURES / "swift_build_errors.txt").read_text())
    assert parsed["errors"] == [
        {"file": "/work/Kit/Sources/Kit/Kit.swift", "line": 12, "column": 16, "message": "cannot find 'formatter' in scope"},
        {"file": "/work/Kit/Sources/Kit/Model.swift", "line": 3, "column": 8, "message": "no such module 'Collections'"},
    ]
    assert parsed["warnings"] == [{"file": "/work/Kit/Sources/Kit/Kit.swift", "line": 20, "column": 9,
                                   "message": "variable 'unused' was never used; consider replacing with '_' or removing it"}]
    assert not parsed["build_complete"] and "tests" not in parsed


def test_parser_golden_linker_errors() -> None:
    parsed = swift_output.parse((FIXTURES / "swift_link_error.txt").read_text())
    assert parsed["linker_errors"] == [
        "error: link command failed with exit code 1 (use -v to see invocation)",
        "Undefined symbols for architecture arm64:", "ld: symbol(s) not found for architecture arm64",
        "clang: error: linker command failed with exit code 1 (use -v to see invocation)"]
    assert swift_output.summary(parsed, 1) == "exit 1; 4 linker errors"


def test_parser_golden_tests_linux_xctest_and_swift_testing() -> None:
    tests = swift_output.parse((FIXTURES / "swift_test_linux.txt").read_text())["tests"]
    assert tests["counts"] == {"passed": 2, "failed": 2} and tests["total"] == 4
    assert tests["passed"] == ["KitTests.testFormat", "addition()"]
    xc, st = tests["failed"]
    assert xc == {"name": "KitTests.testParse", "suite": "KitTests", "framework": "XCTest", "status": "failed",
                  "duration": 0.004, "failures": [{"file": "/work/Kit/Tests/KitTests/KitTests.swift", "line": 21,
                  "message": 'XCTAssertEqual failed: ("Optional(3)") is not equal to ("Optional(4)") - parsed count'}]}
    assert st == {"name": '"Subtraction works"', "framework": "Swift Testing", "status": "failed", "duration": 0.002,
                  "failures": [{"file": "MathTests.swift", "line": 14, "column": 9,
                                "message": "Expectation failed: (result → 1) == 2"}]}


def test_parser_golden_tests_macos_spelling() -> None:
    tests = swift_output.parse((FIXTURES / "swift_test_macos.txt").read_text())["tests"]
    assert tests["counts"] == {"passed": 2, "failed": 1, "skipped": 1}
    (failed,) = tests["failed"]
    assert failed["name"] == "KitTests.KitTests.testParse" and failed["failures"][0]["line"] == 21


def test_parser_marks_a_crashed_test() -> None:
    parsed = swift_output.parse((FIXTURES / "swift_test_crash.txt").read_text())
    assert parsed["tests"]["failed"][0]["status"] == "did not finish (crashed or timed out)"
    assert parsed["errors"] == [{"message": "Exited with unexpected signal code 4"}]


def test_swift_build_through_fake_swift(package: Path, fake_bin: Path) -> None:
    replay(fake_bin, "swift", {"build": (1, "", "@swift_build_errors.txt")})
    failed, data = run_json(package, "swift_build", {"configuration": "release", "target": "Kit"})
    assert failed and not data["success"] and data["exit_code"] == 1
    assert data["summary"] == "exit 1; 2 errors; 1 warning"
    assert data["command"] == "swift build -c release --target Kit"
    assert calls(fake_bin, "swift") == [["build", "-c", "release", "--target", "Kit"]]
    replay(fake_bin, "swift", {"build": (0, "@swift_build_ok.txt", "")})
    failed, data = run_json(package, "swift_build", {"extra_args": ["-Xswiftc", "-warnings-as-errors"]})
    assert not failed and data["summary"] == "exit 0; build complete" and data["errors"] == []
    assert calls(fake_bin, "swift")[-1] == ["build", "-c", "debug", "-Xswiftc", "-warnings-as-errors"]


def test_swift_test_through_fake_swift(package: Path, fake_bin: Path) -> None:
    replay(fake_bin, "swift", {"test": (1, "@swift_test_linux.txt", "")})
    failed, data = run_json(package, "swift_test", {"target": "KitTests"})
    assert failed and data["summary"] == "exit 1; 2 failed, 2 passed tests; build complete"
    assert [t["name"] for t in data["tests"]["failed"]] == ["KitTests.testParse", '"Subtraction works"']
    assert calls(fake_bin, "swift") == [["test", "-c", "debug", "--filter", "KitTests"]]


def test_unparsed_failure_keeps_the_tail(package: Path, fake_bin: Path) -> None:
    replay(fake_bin, "swift", {"build": (1, "", "something odd happened\nand it was bad\n")})
    failed, data = run_json(package, "swift_build", {})
    assert failed and data["output_tail"] == ["something odd happened", "and it was bad"]


def test_swift_resolve_reads_pins(package: Path, fake_bin: Path) -> None:
    (package / "Package.resolved").write_text(json.dumps({"pins": [{
        "identity": "swift-log", "kind": "remoteSourceControl", "location": "https://github.com/apple/swift-log.git",
        "state": {"revision": "e97a6fcb1ab07462881ac165fdbb37f067e205d5", "version": "1.5.4"}}], "version": 2}))
    replay(fake_bin, "swift", {"package resolve": (0, "Fetching https://github.com/apple/swift-log.git\n", "")})
    failed, data = run_json(package, "swift_resolve", {})
    assert not failed and data["pins"] == [{"identity": "swift-log", "location": "https://github.com/apple/swift-log.git",
                                            "revision": "e97a6fcb1ab07462881ac165fdbb37f067e205d5", "version": "1.5.4"}]


def test_missing_swift_says_how_to_install(package: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    message = err(package, "swift_build", {})
    assert message.startswith("swift is not on PATH: install a Swift toolchain from https://www.swift.org/install")
    assert "\n" not in message and "swiftly" in message
    assert err(package, "swift_test", {}) == message


def test_no_package_there(tmp_path: Path) -> None:
    assert err(tmp_path, "swift_build", {}) == "package_path .: no Package.swift there"
    assert err(tmp_path, "swift_build", {"configuration": "fast"}).startswith("invalid arguments for swift_build")


def test_add_dep_with_target(package: Path) -> None:
    out = call(package, "swift_add_dep", {"url": "https://github.com/apple/swift-argument-parser.git",
                                          "version": "1.3.0", "target": "Kit", "product": "ArgumentParser"})
    assert not out.is_error, out.content
    text = (package / "Package.swift").read_text()
    assert text == MANIFEST.replace(
        '"1.5.0"), // logging\n',
        '"1.5.0"), // logging\n        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.3.0"),\n',
    ).replace('package: "swift-log")]', 'package: "swift-log"), .product(name: "ArgumentParser", package: "swift-argument-parser")]')
    assert out.content.startswith("Updated Package.swift\n--- a/Package.swift\n+++ b/Package.swift")
    assert '+        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.3.0"),' in out.content


@pytest.mark.parametrize(("version", "written"), [
    ('from: "2.0.0"', 'from: "2.0.0"'), ('exact: "2.1.3"', 'exact: "2.1.3"'), ('branch: "main"', 'branch: "main"'),
    (".upToNextMinor(from: \"2.1.0\")", '.upToNextMinor(from: "2.1.0")'), ('"1.0.0"..<"2.0.0"', '"1.0.0"..<"2.0.0"'),
])
def test_add_dep_version_forms(package: Path, version: str, written: str) -> None:
    out = call(package, "swift_add_dep", {"url": "https://github.com/pointfreeco/swift-case-paths", "version": version})
    assert not out.is_error, out.content
    assert f'.package(url: "https://github.com/pointfreeco/swift-case-paths", {written}),' in (package / "Package.swift").read_text()


@pytest.mark.parametrize(("args", "message"), [
    ({"url": "https://github.com/apple/swift-log.git", "version": "1.6.0"}, "already depends on swift-log"),
    ({"url": "https://x.y/a.git\"), .package(path: \"/etc", "version": "1.0.0"}, "is not a git URL"),
    ({"url": "https://github.com/a/b.git", "version": '1.0.0"); evil("'}, "is not one of"),
    ({"url": "https://github.com/a/b.git", "version": "1.0.0", "target": "Nope", "product": "B"}, "no target 'Nope'; targets: Kit, KitTests"),
    ({"url": "https://github.com/a/b.git", "version": "1.0.0", "target": "Kit"}, "product: give the library product name"),
    ({"url": "https://github.com/a/b.git"}, "version: give a version requirement"),
])
def test_add_dep_refusals_leave_the_file(package: Path, args: dict, message: str) -> None:
    assert message in err(package, "swift_add_dep", args)
    assert (package / "Package.swift").read_text() == MANIFEST


@pytest.mark.parametrize(("manifest", "message"), [
    (MANIFEST.replace("    dependencies: [\n", "    dependencies: sharedDeps + [\n", 1), "dependencies: is not a literal array"),
    (MANIFEST.replace("    targets: [", "    #if os(macOS)\n    swiftLanguageVersions: [.v5],\n    #endif\n    targets: ["),
     "near line 14"),  # tree-sitter-swift reads no #if inside an argument list: refused either way
    (MANIFEST + "package.dependencies.append(.package(path: \"../Local\"))\n", "changed after Package(...)"),
    (MANIFEST.replace("name: \"Kit\",\n    platforms", "name: \"Kit\"\n    platforms ((("), "does not parse as Swift"),
    (MANIFEST.replace("let package = Package(", "let a = Package(name: \"A\")\nlet package = Package("), "expected one Package(...) call, found 2"),
])
def test_manifest_shapes_it_will_not_edit(package: Path, manifest: str, message: str) -> None:
    (package / "Package.swift").write_text(manifest)
    result = err(package, "swift_add_dep", {"url": "https://github.com/a/b.git", "version": "1.0.0"})
    assert result.startswith("Package.swift: not changed: ") and message in result
    assert (package / "Package.swift").read_text() == manifest
    assert list(package.iterdir()) == [package / "Package.swift"]  # no temporary file left


def test_add_dep_creates_the_dependencies_argument(package: Path) -> None:
    manifest = '// swift-tools-version:5.9\nimport PackageDescription\n\nlet package = Package(\n    name: "Kit",\n    targets: [\n        .target(name: "Kit"),\n    ]\n)\n'
    (package / "Package.swift").write_text(manifest)
    assert not call(package, "swift_add_dep", {"url": "https://github.com/a/b.git", "version": "1.0.0",
                                               "target": "Kit", "product": "B"}).is_error
    assert (package / "Package.swift").read_text() == (
        '// swift-tools-version:5.9\nimport PackageDescription\n\nlet package = Package(\n    name: "Kit",\n'
        '    dependencies: [\n        .package(url: "https://github.com/a/b.git", from: "1.0.0"),\n    ],\n'
        '    targets: [\n        .target(name: "Kit", dependencies: [.product(name: "B", package: "b")]),\n    ]\n)\n')


def test_remove_dep_and_its_products(package: Path) -> None:
    out = call(package, "swift_remove_dep", {"package": "swift-log"})
    assert not out.is_error, out.content
    assert (package / "Package.swift").read_text() == MANIFEST.replace(
        '        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"), // logging\n', ""
    ).replace('dependencies: [.product(name: "Logging", package: "swift-log")]', "dependencies: []")
    assert "-        .package(url:" in out.content
    message = err(package, "swift_remove_dep", {"package": "https://github.com/apple/swift-log.git"})
    assert message == "Package.swift: not changed: no dependency 'https://github.com/apple/swift-log.git'; dependencies: none"


def test_add_then_remove_round_trips(package: Path) -> None:
    for _ in range(2):
        assert not call(package, "swift_add_dep", {"url": "git@github.com:a/b.git", "version": "1.0.0",
                                                   "target": "KitTests", "product": "B"}).is_error
        assert not call(package, "swift_remove_dep", {"package": "git@github.com:a/b.git"}).is_error
    assert (package / "Package.swift").read_text() == MANIFEST
