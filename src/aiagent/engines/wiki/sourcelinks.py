"""Where a page's source references point.

- A GitHub or GitLab ``origin`` remote (``git remote get-url origin``): the repository's web
  view at the checked-out revision, with ``#L<line>`` anchors (both hosts use that form).
  The revision is the commit when a remote branch holds it, else the branch's name.
- Otherwise, for a site (mkdocs, Hugo, Docusaurus): a copy of the referenced file inside the
  site (``source/<path>``), so that no link leaves the built site.
- Plain Markdown without a remote: a relative path to the file in the project.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import quote

from aiagent.infra.process import git as hardened

SOURCE_DIR = "source"  # the copies' folder inside the site
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")  # copied as .txt: a copy is never a page
_SCP = re.compile(r"^(?:[\w.-]+@)?([\w.-]+):(?!//)(.+)$")  # git@github.com:owner/repo.git


def _git(root: Path, *args: str) -> str:
    """One hardened git call (the repository's own config runs nothing); '' on failure."""

    try:
        proc = hardened.run(hardened.prepare(root, args[0], *args[1:]), 20)
    except (OSError, subprocess.SubprocessError, hardened.GitError):
        return ""
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""


def web_view(remote: str) -> tuple[str, str] | None:
    """(host kind, ``https://host/owner/repo``) for a GitHub or GitLab remote URL; credentials
    in the URL are dropped."""
    url = remote.strip()
    scp = _SCP.match(url)
    if scp and "://" not in url:
        host, path = scp.group(1), scp.group(2)
    else:
        match = re.match(r"^(?:https?|ssh|git)://(?:[^@/]*@)?([^/:]+)(?::\d+)?/(.+)$", url)
        if not match:
            return None
        host, path = match.group(1), match.group(2)
    path = path.strip("/").removesuffix(".git")
    kind = "github" if host.lower() == "github.com" else "gitlab" if "gitlab" in host.lower() else ""
    if not kind or path.count("/") < 1 or not re.fullmatch(r"[\w./-]+", path):
        return None
    return kind, f"https://{host.lower()}/{path}"


def web_base(root: Path) -> str:
    """``https://github.com/o/r/blob/<rev>/<prefix>`` (ending with "/"), or "" (no known remote)."""
    found = web_view(_git(root, "remote", "get-url", "origin"))
    if found is None:
        return ""
    kind, repo = found
    commit = _git(root, "rev-parse", "HEAD")
    branch = _git(root, "symbolic-ref", "--short", "HEAD")  # "" when detached
    pushed = bool(commit) and bool(_git(root, "branch", "-r", "--contains", commit))
    rev = commit if pushed or not branch else branch
    if not rev:
        return ""
    prefix = _git(root, "rev-parse", "--show-prefix")
    view = "blob" if kind == "github" else "-/blob"
    return f"{repo}/{view}/{quote(rev, safe='')}/{quote(prefix, safe='/')}"


def copy_name(rel: str) -> str:
    """The copy's path under :data:`SOURCE_DIR` (Markdown files get ``.txt``)."""
    return rel + ".txt" if rel.lower().endswith(MARKDOWN_SUFFIXES) else rel


def copy_target(fmt: str, rel: str) -> str:
    """Where the copy is written, relative to the site's output folder."""
    folder = "docs" if fmt == "mkdocs" else "static"
    return f"{folder}/{SOURCE_DIR}/{copy_name(rel)}"


def site_link(fmt: str, page: str, rel: str) -> str:
    """The link from ``page`` (a wiki page path) to the copy of ``rel`` in a ``fmt`` site."""
    import posixpath

    name = quote(f"{SOURCE_DIR}/{copy_name(rel)}", safe="/.-_~")
    if fmt == "docusaurus":  # a static file: Docusaurus's own form for a link outside the docs
        return f"pathname:///{name}"
    if fmt == "hugo":
        from aiagent.engines.wiki.sites import hugo_url

        here = hugo_url(page) or "."
        return posixpath.relpath(name, here)
    return posixpath.relpath(name, posixpath.dirname(page) or ".")
