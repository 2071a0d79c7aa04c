"""The skill hook ``on_before_wiki_section`` through `aiagent wiki`: a project skill's hook
sees each page and adds to it (made inert); hostile hooks — one that raises, one that
returns junk, one that hangs — are reported once each and switched off, and the wiki is
still written in bounded time."""

from __future__ import annotations

import time
from pathlib import Path

from test_wiki_cli import make_repo, wiki_pages

NOTES_YAML = """name: wiki-notes
version: 1.0.0
description: Adds a review note to the architecture page
types: [transform]
triggers: {modes: [wiki]}
implementation: {backend: starlark, entrypoint: skill.star}
"""
NOTES_STAR = """
def note(ctx):
    s = ctx.section
    if s["path"] != "architecture/overview.md":
        return None
    n = s["markdown"].count("```mermaid")
    return hook_result(inject_prompt = "Reviewed " + s["title"] + " of " + ctx.project["name"] + ": " +
                       str(n) + " diagram. <script>alert(1)</script> [x](javascript:alert(2))")

register_hook("on_before_wiki_section", note)
"""
RAISE_STAR = """
def boom(ctx):
    fail("this wiki hook is broken")

register_hook("on_before_wiki_section", boom)
"""
PLUGIN = """import asyncio


def register(ctx):
    async def hang(event):
        await asyncio.sleep(3600)

    def junk(event):
        return 42

    ctx.register_hook("on_before_wiki_section", {handler})
"""


def skill(repo: Path, name: str, backend: str, code: str) -> None:
    folder = repo / ".agent" / "skills" / name
    folder.mkdir(parents=True)
    entry = "skill.star" if backend == "starlark" else "plugin.py"
    (folder / "SKILL.yaml").write_text(NOTES_YAML.replace("wiki-notes", name)
                                       .replace("starlark, entrypoint: skill.star", f"{backend}, entrypoint: {entry}"))
    (folder / entry).write_text(code)


def test_a_hook_adds_to_its_section_and_hostile_hooks_are_bounded(run_cli, clean_env, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    skill(repo, "wiki-notes", "starlark", NOTES_STAR)
    skill(repo, "wiki-raise", "starlark", RAISE_STAR)
    skill(repo, "wiki-junk", "python", PLUGIN.format(handler="junk"))
    skill(repo, "wiki-hang", "python", PLUGIN.format(handler="hang"))
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[wiki]\nhook_timeout = 1\n")
    out = tmp_path / "wiki"
    started = time.monotonic()
    proc = run_cli("wiki", str(repo), "-o", str(out), "--no-model", "--no-security", "--trust", timeout=120)
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(out)
    arch = pages["architecture/overview.md"]
    assert "_Added by the skill `wiki-notes`:_" in arch
    assert "Reviewed Architecture of repo: 1 diagram." in arch  # it saw the section and the project
    assert "<script>" not in arch and "&lt;script>" in arch and "javascript:" not in arch
    assert sum("_Added by the skill" in text for text in pages.values()) == 1
    err = proc.stderr
    for name, why in (("wiki-raise", "this wiki hook is broken"), ("wiki-junk", "must return hook_result"),
                      ("wiki-hang", "timed out after 1s")):
        lines = [line for line in err.splitlines() if f"skill {name}:" in line]
        assert len(lines) == 1 and why in lines[0] and "off for the rest of this run" in lines[0], err
    assert took < 60, f"{took:.1f}s"  # one timeout, not one per page


def test_a_bad_hook_timeout_is_one_line(run_cli, clean_env, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    skill(repo, "wiki-notes", "starlark", NOTES_STAR)
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[wiki]\nhook_timeout = \"soon\"\n")
    proc = run_cli("wiki", str(repo), "-o", str(tmp_path / "wiki"), "--no-model", "--no-security", "--trust")
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("aiagent: error: ") and "config.toml:2: [wiki] hook_timeout: expected a number" in last
