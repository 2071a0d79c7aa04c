"""The Xcode project structure page (FR-6.12) through the real ``aiagent wiki``: on
examples/ios-app, on a Package.swift-only project, on a broken project file (the page says
so, the wiki is still written), in the nav of every format; its diagrams render with the
real Mermaid (headless Chromium), Graphviz and D2."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_wiki_cli import MKDOCS, check_links, wiki_pages
from test_wiki_diagrams import blocks, need_mermaid

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ios-app"
PAGE = "code-structure/xcode-project.md"

PACKAGE = """// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Shelf",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [.library(name: "ShelfKit", targets: ["ShelfKit"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.3.0"),
    ],
    targets: [
        .target(name: "ShelfKit", dependencies: []),
        .executableTarget(name: "shelf", dependencies: [
            "ShelfKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "ShelfKitTests", dependencies: ["ShelfKit"]),
    ]
)
"""


def ios_app(tmp_path: Path) -> Path:
    return Path(shutil.copytree(EXAMPLE, tmp_path / "ios-app"))


def package_only(root: Path) -> Path:
    (root / "Sources" / "ShelfKit").mkdir(parents=True)
    (root / "Sources" / "shelf").mkdir(parents=True)
    (root / "Package.swift").write_text(PACKAGE)
    (root / "Sources" / "ShelfKit" / "Shelf.swift").write_text("public struct Shelf {\n    public init() {}\n}\n")
    (root / "Sources" / "shelf" / "main.swift").write_text("import ShelfKit\nlet shelf = Shelf()\n")
    return root


def table_row(page: str, first: str) -> str:
    row = next((ln for ln in page.splitlines() if ln.startswith(f"| {first} |")), None)
    assert row is not None, f"no row {first} in:\n{page}"
    return row


def test_ios_app_page_has_targets_schemes_phases_and_dependencies(run_cli, tmp_path: Path) -> None:
    repo = ios_app(tmp_path)
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0, proc.stderr
    out = repo / "docs" / "wiki"
    pages = wiki_pages(out)
    page = pages[PAGE]
    app = table_row(page, "`NotesApp`")
    assert "application" in app and "iOS" in app and "iOS 17.0" in app
    assert "bundle.unit-test" in table_row(page, "`NotesAppTests`")
    phases = page.split("### Build phases")[1].split("###")[0]
    assert "run script `SwiftLint`" in phases and "sources (5 files)" in phases
    deps = page.split("### Target dependencies")[1].split("###")[0]
    assert "| `NotesAppTests` | `NotesApp` |" in deps and "`Collections`" in deps
    schemes = page.split("### Schemes")[1].split("###")[0]
    assert "| `NotesApp` | `NotesApp` | `NotesAppTests` | yes |" in schemes
    assert "https://github.com/apple/swift-collections.git" in page
    assert "n1 --> n0" in page  # NotesAppTests -> NotesApp in the typed graph
    assert "xcode-project.md" in pages["code-structure/overview.md"]
    check_links(out, pages)


def test_package_swift_only_project(run_cli, tmp_path: Path) -> None:
    repo = package_only(tmp_path / "shelf")
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0, proc.stderr
    page = wiki_pages(repo / "docs" / "wiki")[PAGE]
    assert "## Swift package `Shelf`" in page and "tools version 5.9" in page
    assert "`.macOS(.v13)`" in page
    assert "executableTarget" in table_row(page, "`shelf`") and "`ShelfKit`" in table_row(page, "`shelf`")
    assert "testTarget" in table_row(page, "`ShelfKitTests`")
    assert "https://github.com/apple/swift-argument-parser.git" in page
    assert '"ArgumentParser"' in page  # the package product is a node of the diagram


def test_no_xcode_project_no_page(run_cli, tmp_path: Path) -> None:
    repo = tmp_path / "plain"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "a.py").write_text("def f():\n    return 1\n")
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(repo / "docs" / "wiki")
    assert PAGE not in pages and "xcode-project" not in pages["code-structure/overview.md"]


def test_steering_exclude_applies(run_cli, tmp_path: Path) -> None:
    repo = ios_app(tmp_path)
    package_only(repo / "Shelf")
    (repo / ".agent").mkdir()
    (repo / ".agent" / "wiki.yaml").write_text("exclude: [Shelf/]\n")
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0, proc.stderr
    page = wiki_pages(repo / "docs" / "wiki")[PAGE]
    assert "## Project `NotesApp.xcodeproj`" in page and "Shelf" not in page


def test_broken_pbxproj_is_said_on_the_page_and_the_wiki_is_written(run_cli, tmp_path: Path) -> None:
    repo = ios_app(tmp_path)
    pbx = repo / "NotesApp.xcodeproj" / "project.pbxproj"
    pbx.write_text(pbx.read_text()[:400] + "\n{{{ this is not a property list")
    package_only(repo / "Shelf")  # a good manifest beside it is still read
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(repo / "docs" / "wiki")
    page = pages[PAGE]
    assert "**The project file could not be read:**" in page and "project.pbxproj" in page
    assert "| `NotesApp` | `NotesApp` | `NotesAppTests` | yes |" in page  # schemes still read
    assert "## Swift package `Shelf`" in page and "`ShelfKitTests`" in page
    assert "index.md" in pages and "modules/index.md" in pages and "architecture/overview.md" in pages


def test_dangling_references_are_listed_and_the_rest_is_read(run_cli, tmp_path: Path) -> None:
    repo = ios_app(tmp_path)
    pbx = repo / "NotesApp.xcodeproj" / "project.pbxproj"
    text = pbx.read_text()
    pbx.write_text(text.replace("A10000000000000000000020 /* NotesAppTests */,", "A1FFFFFFFFFFFFFFFFFFFFFF,", 1))
    assert pbx.read_text() != text
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0, proc.stderr
    page = wiki_pages(repo / "docs" / "wiki")[PAGE]
    assert "### Problems in the project file" in page and "A1FFFFFFFFFFFFFFFFFFFFFF" in page
    assert "application" in table_row(page, "`NotesApp`")


def test_hostile_names_stay_inert(run_cli, tmp_path: Path) -> None:
    repo = package_only(tmp_path / "evil")
    text = PACKAGE.replace('"ShelfKitTests", dependencies: ["ShelfKit"]',
                           '"Evil]|<b>x</b>`y", dependencies: ["ShelfKit", "a\\"b"]')
    (repo / "Package.swift").write_text(text)
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0, proc.stderr
    page = wiki_pages(repo / "docs" / "wiki")[PAGE]
    assert "| `` Evil]\\|<b>x</b>`y `` |" in page  # a code span: inert, pipe escaped for the table
    diagram = page.split("```mermaid")[1].split("```")[0]
    assert "#lt;b#gt;" in diagram and "<b>" not in diagram


def test_page_is_in_the_nav_of_every_format(run_cli, tmp_path: Path) -> None:
    repo = ios_app(tmp_path)
    for fmt in ("mkdocs", "hugo", "docusaurus"):
        out = tmp_path / f"out-{fmt}"
        proc = run_cli("wiki", str(repo), "--no-security", "--format", fmt, "--output", str(out))
        assert proc.returncode == 0, proc.stderr
        if fmt == "mkdocs":
            assert "code-structure/xcode-project.md" in (out / "mkdocs.yml").read_text()
            built = subprocess.run([str(MKDOCS), "build", "--strict", "-q", "-d", str(tmp_path / "html")],
                                   cwd=out, capture_output=True, text=True, timeout=120)
            assert built.returncode == 0, built.stderr
            assert (tmp_path / "html" / "code-structure" / "xcode-project" / "index.html").is_file()
        elif fmt == "hugo":
            page = (out / "content" / PAGE).read_text()
            assert page.startswith("---\ntitle: Xcode project\n")
            assert "Xcode project" in (out / "content" / "code-structure" / "_index.md").read_text()
        else:
            sidebar = (out / "sidebars.js").read_text()
            items = json.loads(sidebar[sidebar.index("{"):sidebar.rindex("}") + 1])["wiki"]
            code = next(i for i in items if isinstance(i, dict) and i["label"] == "Code structure")
            assert "code-structure/xcode-project" in code["items"]


def xcode_blocks(tmp_path: Path, run_cli, fmt: str) -> list[str]:
    found: list[str] = []
    for repo in (ios_app(tmp_path), package_only(tmp_path / "shelf")):
        proc = run_cli("wiki", str(repo), "--no-security", "--diagrams", fmt, "--output", str(tmp_path / f"w-{repo.name}-{fmt}"))
        assert proc.returncode == 0, proc.stderr
        page = wiki_pages(tmp_path / f"w-{repo.name}-{fmt}")[PAGE]
        found += re.findall(rf"```{fmt}\n(.*?)\n```", page, re.S)
    return found


def test_xcode_diagrams_render_with_mermaid(run_cli, tmp_path: Path) -> None:
    need_mermaid()
    from mermaid_render import render_all

    found = xcode_blocks(tmp_path, run_cli, "mermaid")
    assert len(found) == 2
    assert render_all(found) == ["ok", "ok"]


def test_xcode_diagrams_render_with_graphviz(run_cli, tmp_path: Path) -> None:
    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("needs Graphviz `dot` (Debian graphviz, installed by .ci/run)")
    for block in xcode_blocks(tmp_path, run_cli, "dot"):
        done = subprocess.run([dot, "-Tsvg"], input=block, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "<svg" in done.stdout, done.stderr


__all__ = ["blocks", "ios_app", "package_only", "xcode_blocks"]
