"""Stage 6: write the pages as plain Markdown, or as an MkDocs, Hugo or Docusaurus project
(see :mod:`aiagent.engines.wiki.sites`), atomically.

The wiki is built in a temporary folder beside ``output`` and swapped in only when complete,
so a failed run leaves the previous wiki as it was. MkDocs output is ``mkdocs.yml`` plus the
pages under ``docs/`` (MkDocs refuses a docs folder that holds its own config file); Hugo's
pages go under ``content/``, Docusaurus's under ``docs/``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from aiagent.engines.wiki import sites
from aiagent.engines.wiki.errors import WikiError
from aiagent.engines.wiki.pages import Page

FORMATS = ("markdown", "mkdocs", "hugo", "docusaurus")
PAGES_DIRS = {"mkdocs": "docs", "hugo": "content", "docusaurus": "docs"}
MERMAID_CDN = "https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.min.js"
MERMAID_LOCAL = {"mkdocs": "docs/assets/mermaid.min.js", "hugo": "static/js/mermaid.min.js"}
MKDOCS_INIT = "docs/assets/mermaid-init.js"
MAX_MERMAID_JS = 20 * 1024 * 1024
VIEW = {"mkdocs": "mkdocs serve (mkdocs from PyPI)", "hugo": "hugo server (Hugo from your distribution)",
        "docusaurus": "npm install && npm start"}
# MkDocs leaves out dot-files by default; the copies of sources under source/ keep theirs
MKDOCS_EXCLUDE = "/templates/\n.*\n!/source/**\n"
SECTIONS = [("Architecture", "architecture/"), ("Modules", "modules/"), ("Code structure", "code-structure/"),
            ("Testing", "testing/"), ("Security", "security/"), ("Skill pages", "skill-contributed/"),
            ("Guides", "guides/"), ("Suggestions", "suggestions/")]


def pages_dir(output: Path, fmt: str) -> Path:
    sub = PAGES_DIRS.get(fmt)
    return output / sub if sub else output


def check_output(output: Path) -> None:
    if output.exists() and not output.is_dir():
        raise WikiError(f"{output}: the output is a file, not a folder")
    parent = output.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise WikiError(f"{parent}: the output's parent is a file, not a folder")


def write_wiki(pages: list[Page], output: Path, fmt: str, title: str,
               extra: dict[str, str] | None = None, copies: dict[str, Path] | None = None,
               mermaid_js: Path | None = None) -> None:
    """``extra``: files beside the pages (relative to ``output``), such as the manifest;
    ``copies``: project files copied into the site (site path -> file); ``mermaid_js``: a
    local ``mermaid.min.js`` the mkdocs and Hugo sites carry (else they load it from a CDN)."""
    if fmt not in FORMATS:
        raise WikiError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    check_output(output)
    if mermaid_js is not None:
        check_mermaid_js(mermaid_js)
    local = MERMAID_LOCAL.get(fmt) if mermaid_js is not None else None
    copies = {**(copies or {}), **({local: mermaid_js} if local and mermaid_js else {})}
    pages, site = site_files(pages, fmt, title, local is not None)
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.new-", dir=output.parent))
    try:
        target = pages_dir(staging, fmt)
        for page in pages:
            file = target / page.path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(page.body, encoding="utf-8")
        for name, text in {**site, **(extra or {})}.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_text(text, encoding="utf-8")
        for name, source in (copies or {}).items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, staging / name)
        _swap(staging, output)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def check_mermaid_js(path: Path) -> None:
    """A WikiError unless ``path`` is a ``.js`` file that mentions Mermaid (a wrong file, or a
    secret named by mistake, is never copied into a site that may be published)."""
    if not path.is_file():
        raise WikiError(f"{path}: no such file (--mermaid-js and [wiki] mermaid_js want a mermaid.min.js)")
    if path.suffix != ".js" or path.stat().st_size > MAX_MERMAID_JS or b"mermaid" not in path.read_bytes():
        raise WikiError(f"{path}: not a Mermaid script (a mermaid.min.js, e.g. from the npm package mermaid)")


def site_notes(fmt: str, output: Path, local_mermaid: bool, diagrams: bool) -> list[str]:
    """What to do with the site just written: how to view it, and where its Mermaid comes from."""
    view = VIEW.get(fmt)
    notes = [f"site: to view it: cd {output} && {view}"] if view else []
    if fmt in MERMAID_LOCAL and diagrams and not local_mermaid:
        notes.append("site: the diagrams load Mermaid from jsDelivr when a page is viewed; to draw them "
                     "offline, give a local mermaid.min.js (--mermaid-js FILE or [wiki] mermaid_js)")
    return notes


def site_files(pages: list[Page], fmt: str, title: str,
               local_mermaid: bool = False) -> tuple[list[Page], dict[str, str]]:
    """The pages as ``fmt`` wants them, and the site's own files (relative to the output)."""

    if fmt == "mkdocs":
        init = sites.template("mkdocs/mermaid-init.js")
        return pages, {"mkdocs.yml": mkdocs_yaml(pages, title, local_mermaid), MKDOCS_INIT: init}
    if fmt == "hugo":
        return sites.hugo_pages(pages), sites.hugo_files(title, local_mermaid)
    if fmt == "docusaurus":
        return sites.docusaurus_pages(pages), sites.docusaurus_files(pages, title)
    return pages, {}


def _swap(staging: Path, output: Path) -> None:
    old = None
    if output.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{output.name}.old-", dir=output.parent))
        old.rmdir()
        output.rename(old)
    try:
        staging.rename(output)
    except OSError:
        if old is not None:
            old.rename(output)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def mkdocs_yaml(pages: list[Page], title: str, local_mermaid: bool = False) -> str:
    import yaml

    nav: list[object] = [{"Overview": "index.md"}]
    for name, prefix in SECTIONS:
        entries = [{p.title: p.path} for p in pages if p.path.startswith(prefix)]
        if entries:
            nav.append({name: entries})
    nav += [{p.title: p.path} for p in pages if "/" not in p.path and p.path != "index.md"]
    mermaid = "assets/mermaid.min.js" if local_mermaid else MERMAID_CDN
    config = {"site_name": title or "Wiki", "docs_dir": "docs", "nav": nav,
              "theme": {"name": "mkdocs", "highlightjs": False},  # its highlight.js comes from a CDN
              "markdown_extensions": ["tables", "fenced_code"],
              "extra_javascript": [mermaid, "assets/mermaid-init.js"], "exclude_docs": MKDOCS_EXCLUDE}
    return str(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
