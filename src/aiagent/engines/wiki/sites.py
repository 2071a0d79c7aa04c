"""Hugo and Docusaurus output: the same pages with front matter, section index pages,
links in the form each generator resolves, and the site files beside them.

Hugo: pages under ``content/``; ``index.md`` becomes ``_index.md`` (a folder's
``index.md`` would make the folder a leaf bundle and hide its other pages), every section
gets an ``_index.md``, links between pages become relative pretty URLs
(``../architecture/overview/``), and a minimal theme under ``layouts/`` turns ```mermaid
blocks into ``<pre class="mermaid">`` with a render hook.

Docusaurus: pages under ``docs/`` with ``id``, ``title``, ``sidebar_position`` and
``description``; ``sidebars.js`` lists them in the wiki's order; ``.md`` links stay as
they are (Docusaurus resolves file links); ```mermaid blocks render with
``@docusaurus/theme-mermaid`` (``markdown.mermaid`` in ``docusaurus.config.js``).
"""

from __future__ import annotations

import json
import posixpath
import re
from importlib import resources
from urllib.parse import unquote

from aiagent.engines.wiki.pages import Page, cell

SECTIONS = [("Architecture", "architecture/"), ("Modules", "modules/"), ("Code structure", "code-structure/"),
            ("Testing", "testing/"), ("Security", "security/"), ("Skill pages", "skill-contributed/"),
            ("Guides", "guides/"), ("Suggestions", "suggestions/")]
LINK = re.compile(r"(?<!\\)\]\(([^)\s]+)\)")
MAX_DESCRIPTION = 160


def description(body: str) -> str:
    """The first paragraph of plain text in ``body`` (no heading, table, list or code)."""
    para: list[str] = []
    fence = False
    for line in body.splitlines():
        text = line.strip()
        if text.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or text.startswith(("#", "|", "- ", "* ", ">")) or not text:
            if para:
                break
            continue
        para.append(text)
    plain = re.sub(r"\]\([^)]*\)", "]", " ".join(para))
    plain = re.sub(r"\\(.)", r"\1", plain.replace("[", "").replace("]", "").replace("`", ""))
    plain = plain.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return plain if len(plain) <= MAX_DESCRIPTION else plain[: MAX_DESCRIPTION - 1] + "…"


def front_matter(fields: dict[str, object], body: str) -> str:
    import yaml

    fields = {k: v for k, v in fields.items() if v != ""}
    text = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{text}---\n\n{body}"


def _weights(pages: list[Page]) -> dict[str, int]:
    """Position of each page among the pages of its folder, index pages first."""
    out: dict[str, int] = {}
    count: dict[str, int] = {}
    for page in sorted(pages, key=lambda p: posixpath.basename(p.path) != "index.md"):
        folder = posixpath.dirname(page.path)
        count[folder] = count.get(folder, 0) + 1
        out[page.path] = count[folder]
    for position, (_, prefix) in enumerate(SECTIONS, start=1):
        if f"{prefix}index.md" in out:  # a section's own page: the section's place in the nav
            out[f"{prefix}index.md"] = position
    return out


def template(name: str) -> str:
    return resources.files("aiagent.engines.wiki").joinpath("site_templates", name).read_text("utf-8")


# ---- Hugo ------------------------------------------------------------------------------

HUGO_TEMPLATES = ["layouts/_default/baseof.html", "layouts/_default/single.html",
                  "layouts/_default/list.html", "layouts/_default/_markup/render-codeblock-mermaid.html"]


def hugo_path(path: str) -> str:
    return posixpath.join(posixpath.dirname(path), "_index.md") if posixpath.basename(path) == "index.md" else path


def hugo_url(path: str) -> str:
    """The folder a page is served from, relative to the site root ("" for the home page)."""
    path = hugo_path(path)
    if posixpath.basename(path) == "_index.md":
        return posixpath.dirname(path)
    return path[: -len(".md")]


def hugo_link(src: str, dst: str, anchor: str = "") -> str:
    rel = posixpath.relpath(hugo_url(dst) or ".", hugo_url(src) or ".")
    return ("./" if rel == "." else rel + "/") + (f"#{anchor}" if anchor else "")


def _rewrite_links(page: Page, known: set[str]) -> str:
    def swap(match: re.Match[str]) -> str:
        target = match.group(1)
        path, _, anchor = target.partition("#")
        if not path.endswith(".md") or "://" in path:
            return match.group(0)
        dst = posixpath.normpath(posixpath.join(posixpath.dirname(page.path), unquote(path)))
        if dst not in known:
            return match.group(0)
        return f"]({hugo_link(page.path, dst, anchor)})"

    return LINK.sub(swap, page.body)


def hugo_pages(pages: list[Page]) -> list[Page]:
    known = {p.path for p in pages}
    weights = _weights(pages)
    out = []
    for page in pages:
        fields = {"title": page.title, "weight": weights[page.path], "description": description(page.body)}
        out.append(Page(hugo_path(page.path), page.title, front_matter(fields, _rewrite_links(page, known))))
    for position, (name, prefix) in enumerate(SECTIONS, start=1):
        members = [p for p in pages if p.path.startswith(prefix)]
        if members and f"{prefix}index.md" not in known:
            out.append(_hugo_section(name, prefix, members, position))
    return out


def _hugo_section(name: str, prefix: str, members: list[Page], weight: int) -> Page:
    index = f"{prefix}_index.md"
    lines = [f"# {name}", ""] + [f"- [{_link_text(p.title)}]({hugo_link(index, p.path)})" for p in members]
    count = f"{len(members)} page" + ("s" if len(members) > 1 else "")
    fields = {"title": name, "weight": weight, "description": f"{name}: {count}."}
    return Page(index, name, front_matter(fields, "\n".join(lines) + "\n"))


def _link_text(title: str) -> str:

    return cell(title)


def hugo_files(title: str, local_mermaid: bool = False) -> dict[str, str]:
    from aiagent.engines.wiki.render import MERMAID_CDN

    mermaid = "js/mermaid.min.js" if local_mermaid else MERMAID_CDN
    files = {"hugo.toml": f"title = {toml_string(title or 'Wiki')}\n" + template("hugo/hugo.toml")
             + f"mermaid = {toml_string(mermaid)}\n"}
    for name in HUGO_TEMPLATES:
        files[name] = template(f"hugo/{name}")
    return files


def toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


# ---- Docusaurus ------------------------------------------------------------------------


def doc_id(path: str) -> str:
    return path[: -len(".md")]


def docusaurus_pages(pages: list[Page]) -> list[Page]:
    weights = _weights(pages)
    out = []
    for page in pages:
        fields = {"id": posixpath.basename(doc_id(page.path)), "title": page.title,
                  "sidebar_position": weights[page.path], "description": description(page.body)}
        out.append(Page(page.path, page.title, front_matter(fields, page.body)))
    return out


def sidebar(pages: list[Page]) -> list[object]:
    items: list[object] = ["index"] if any(p.path == "index.md" for p in pages) else []
    for name, prefix in SECTIONS:
        members = [p for p in pages if p.path.startswith(prefix)]
        if not members:
            continue
        category: dict[str, object] = {"type": "category", "label": name}
        index = next((p for p in members if p.path == f"{prefix}index.md"), None)
        if index is not None:
            category["link"] = {"type": "doc", "id": doc_id(index.path)}
        category["items"] = [doc_id(p.path) for p in members if p is not index]
        items.append(category)
    items += [doc_id(p.path) for p in pages if "/" not in p.path and p.path != "index.md"]
    return items


def docusaurus_files(pages: list[Page], title: str) -> dict[str, str]:
    sidebars = ("// Generated by `aiagent wiki --format docusaurus`: the wiki's pages in order.\n"
                f"module.exports = {json.dumps({'wiki': sidebar(pages)}, indent=2, ensure_ascii=False)};\n")
    config = template("docusaurus/docusaurus.config.js").replace("__TITLE__", json.dumps(title or "Wiki"))
    return {"sidebars.js": sidebars, "docusaurus.config.js": config,
            "package.json": template("docusaurus/package.json")}
