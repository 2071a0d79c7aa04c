"""``aiagent wiki`` end to end on small real repositories (Python + JavaScript): pages,
API tables with links that resolve, Mermaid blocks in the generated grammar subset, an
MkDocs build with --strict, bad input as one line with nothing written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

MKDOCS = Path(sys.executable).with_name("mkdocs")
LINK = re.compile(r"(?<!\\)\]\(([^)\s]+)\)")  # an escaped \] is text, not a link
MERMAID_LINE = re.compile(
    r'^(flowchart (LR|TD)|  subgraph g\d+\["[^"]*"\]|  end|\s+n\d+\["[^"]*"\]|  n\d+ -->(\|\d+\|)? n\d+)$')


def make_repo(root: Path) -> Path:
    (root / "app" / "core").mkdir(parents=True)
    (root / "web").mkdir()
    (root / "tests").mkdir()
    (root / "app" / "__init__.py").write_text('"""The demo application."""\n')
    (root / "app" / "core" / "__init__.py").write_text('"""Core | pricing rules."""\n')
    (root / "app" / "core" / "prices.py").write_text(
        '"""Prices."""\n\n\nclass Price:\n    """An amount with a currency."""\n\n'
        '    def total(self, qty: int) -> int:\n        return qty\n\n\n'
        'def discount(price: "Price", rate: float = 0.1) -> float:\n    """Apply a rate."""\n'
        '    return rate\n\n\ndef _hidden():\n    pass\n')
    (root / "app" / "main.py").write_text(
        'from app.core.prices import discount\nfrom .core import prices\n\n\n'
        'def run() -> None:\n    discount(None)\n\n\nif __name__ == "__main__":\n    run()\n')
    (root / "web" / "util.js").write_text(
        "// Format a name <b>for</b> display.\nexport function formatName(first, last) {\n"
        "  return `${first} ${last}`;\n}\n")
    (root / "web" / "index.js").write_text(
        "import { formatName } from './util';\nexport class Greeter {\n  greet() { return formatName('a', 'b'); }\n}\n")
    (root / "tests" / "test_prices.py").write_text(
        "from app.core.prices import discount\n\n\ndef test_discount():\n    assert discount(None) == 0.1\n")
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n[project.scripts]\ndemo = "app.main:run"\n')
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "generated.py").write_text("def generated_should_not_appear():\n    pass\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "demo")


def wiki_pages(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*.md")}


def check_links(out: Path, pages: dict[str, str]) -> int:
    checked = 0
    for rel, text in pages.items():
        for target in LINK.findall(text):
            path, _, anchor = target.partition("#")
            file = (out / rel).parent / unquote(path)
            assert file.is_file(), f"{rel}: broken link {target}"
            if anchor.startswith("L"):
                assert int(anchor[1:]) <= len(file.read_text().splitlines()), f"{rel}: {target}"
            checked += 1
    return checked


def mermaid_blocks(pages: dict[str, str]) -> list[str]:
    return [b for text in pages.values() for b in re.findall(r"```mermaid\n(.*?)\n```", text, re.S)]


def test_static_wiki_of_a_python_and_js_repo(run_cli, repo: Path) -> None:
    proc = run_cli("wiki", str(repo))
    assert proc.returncode == 0, proc.stderr
    assert "wiki: scan:" in proc.stderr and "wiki: wrote" in proc.stderr and proc.stdout == ""
    out = repo / "docs" / "wiki"
    pages = wiki_pages(out)
    for page in ("index.md", "architecture/overview.md", "architecture/dependencies.md", "modules/index.md",
                 "code-structure/overview.md", "testing/coverage-report.md", "security/overview.md", "glossary.md"):
        assert page in pages, sorted(pages)
    core = pages["modules/app-core.md"]
    assert "Core \\| pricing rules." in core
    assert "`def discount(price: \"Price\", rate: float = 0.1) -> float`" in core
    assert "[app/core/prices.py:11](../../../app/core/prices.py#L11)" in core
    assert "`Price.total`" in core and "_hidden" not in core
    web = pages["modules/web.md"]
    assert "`formatName`" in web and "[web/util.js:2](../../../web/util.js#L2)" in web
    assert "Format a name &lt;b&gt;for&lt;/b&gt; display." in web and "`Greeter`" in web
    assert "generated_should_not_appear" not in "".join(pages.values())
    assert "`demo` → `app.main:run`" in pages["index.md"]
    assert check_links(out, pages) > 10
    blocks = mermaid_blocks(pages)
    assert blocks
    for block in blocks:
        for line in block.splitlines():
            assert MERMAID_LINE.match(line), f"not in the generated Mermaid grammar: {line!r}"


def test_mkdocs_output_builds_strict(run_cli, repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "site-src"
    proc = run_cli("wiki", str(repo), "--output", str(out), "--format", "mkdocs")
    assert proc.returncode == 0, proc.stderr
    assert (out / "mkdocs.yml").is_file() and (out / "docs" / "index.md").is_file()
    assert check_links(out / "docs", wiki_pages(out / "docs")) > 10
    built = subprocess.run([str(MKDOCS), "build", "--strict", "-q", "-d", str(tmp_path / "html")],
                           cwd=out, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "html" / "modules" / "app-core" / "index.html").is_file()


def one_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("aiagent: error:")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_not_a_code_folder(run_cli, tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# hi\n")
    assert "not a code folder" in one_error(run_cli("wiki", str(tmp_path / "notes")))
    assert not (tmp_path / "notes" / "docs").exists()
    assert one_error(run_cli("wiki", str(tmp_path / "notes" / "a.md"))).endswith("a.md: not a folder")
    assert one_error(run_cli("wiki", str(tmp_path / "missing"))).endswith("missing: no such folder")


def test_output_that_is_a_file(run_cli, repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("keep me")
    assert "is a file" in one_error(run_cli("wiki", str(repo), "--output", str(target)))
    assert target.read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".taken")] == []


def test_broken_steering_file_and_a_good_one(run_cli, repo: Path) -> None:
    steering = repo / ".agent" / "wiki.yaml"
    steering.parent.mkdir()
    steering.write_text("exclude: [web/\n")
    assert "wiki.yaml" in one_error(run_cli("wiki", str(repo)))
    steering.write_text("exlude: [web/]\n")
    assert "unknown key 'exlude'" in one_error(run_cli("wiki", str(repo)))
    assert not (repo / "docs").exists()
    steering.write_text("exclude: [web/]\nnotes: [Prices are in cents.]\n")
    proc = run_cli("wiki", str(repo))
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(repo / "docs" / "wiki")
    assert "modules/web.md" not in pages and "Prices are in cents." in pages["index.md"]


def test_unreadable_file(clean_env: dict[str, str], repo: Path) -> None:
    import os
    import shutil

    bad = repo / "app" / "secret.py"
    bad.write_text("x = 1\n")
    bad.chmod(0)
    command = [str(Path(sys.executable).with_name("aiagent")), "wiki", str(repo)]
    if os.geteuid() == 0:
        # Root reads a mode-000 file through CAP_DAC_OVERRIDE: run the CLI without the two
        # capabilities that bypass file permissions, so the file is unreadable to it too.
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) is needed to drop root's file-permission bypass"
        command = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--", *command]
    proc = subprocess.run(command, cwd=repo, env=clean_env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert "app/secret.py: cannot read" in one_error(proc)


def test_failed_run_leaves_the_previous_wiki(run_cli, repo: Path) -> None:
    assert run_cli("wiki", str(repo)).returncode == 0
    out = repo / "docs" / "wiki"
    before = wiki_pages(out)
    (repo / "app" / "core" / "prices.py").write_text("def changed():\n    pass\n")
    (repo / ".agent").mkdir()
    (repo / ".agent" / "wiki.yaml").write_text("include: 3\n")
    one_error(run_cli("wiki", str(repo)))
    assert wiki_pages(out) == before
    assert [p.name for p in out.parent.iterdir()] == ["wiki"]


def test_write_that_fails_midway_keeps_the_previous_wiki(tmp_path: Path) -> None:
    from aiagent.engines.wiki.pages import Page
    from aiagent.engines.wiki.render import write_wiki

    out = tmp_path / "wiki"
    write_wiki([Page("index.md", "Overview", "old\n")], out, "markdown", "t")
    with pytest.raises(ValueError):
        write_wiki([Page("index.md", "Overview", "new\n"), Page("bad\x00.md", "Bad", "x")], out, "markdown", "t")
    assert (out / "index.md").read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["wiki"]
    write_wiki([Page("index.md", "Overview", "new\n")], out, "markdown", "t")
    assert (out / "index.md").read_text() == "new\n" and [p.name for p in tmp_path.iterdir()] == ["wiki"]


def test_go_and_typescript_are_modelled(run_cli, tmp_path: Path) -> None:
    repo = tmp_path / "gots"
    (repo / "pkg" / "greet").mkdir(parents=True)
    (repo / "cmd" / "demo").mkdir(parents=True)
    (repo / "ui").mkdir()
    (repo / "go.mod").write_text("module example.com/demo\n\ngo 1.22\n")
    (repo / "pkg" / "greet" / "greet.go").write_text(
        "package greet\n\n// Hello greets someone by name.\nfunc Hello(name string) string {\n"
        "\treturn \"hi \" + name\n}\n\nfunc quiet() {}\n")
    (repo / "cmd" / "demo" / "main.go").write_text(
        "package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/demo/pkg/greet\"\n)\n\n"
        "func main() {\n\tfmt.Println(greet.Hello(\"x\"))\n}\n")
    (repo / "ui" / "api.ts").write_text(
        "/** A typed client. */\nexport interface Client {\n  get(path: string): Promise<string>;\n}\n"
        "export function makeClient(base: string): Client {\n  return { get: async (p) => base + p };\n}\n")
    (repo / "ui" / "app.ts").write_text("import { makeClient } from './api';\nexport const c = makeClient('/');\n")
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0, proc.stderr
    out = repo / "docs" / "wiki"
    pages = wiki_pages(out)
    greet = pages["modules/pkg-greet.md"]
    assert "`Hello`" in greet and "`func Hello(name string) string`" in greet and "`quiet`" not in greet
    assert "Hello greets someone by name." in greet
    assert "[pkg/greet/greet.go:4](../../../pkg/greet/greet.go#L4)" in greet
    assert "Used by: [cmd/demo](cmd-demo.md) (1)" in greet
    assert "main function" in pages["index.md"]
    ui = pages["modules/ui.md"]
    assert "`Client`" in ui and "`makeClient`" in ui and "A typed client." in ui
    assert check_links(out, pages) > 5


def test_hostile_project_text_stays_inert_and_pipes_do_not_hang(run_cli, repo: Path, tmp_path: Path) -> None:
    import os

    (repo / "app" / "evil.py").write_text(
        '"""<script>alert(1)</script> [click](javascript:alert(2)) ![x](http://e.invalid/t.png)"""\n\n\n'
        "def f(a='`` ``'):\n    pass\n")
    (repo / "app with space (v2)").mkdir()
    (repo / "app with space (v2)" / "m.py").write_text("def g():\n    pass\n")
    os.mkfifo(repo / "app" / "pipe.py")  # reading it would block for ever
    out = tmp_path / "site"
    proc = run_cli("wiki", str(repo), "--output", str(out), "--format", "mkdocs", "--no-security", timeout=60)
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(out / "docs")
    assert check_links(out / "docs", pages) > 10  # the folder with spaces and parentheses too
    assert "pipe.py" not in "".join(pages.values())
    built = subprocess.run([str(MKDOCS), "build", "--strict", "-q", "-d", str(tmp_path / "html")],
                           cwd=out, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    html = "".join(p.read_text() for p in (tmp_path / "html").rglob("*.html"))
    assert "<script>alert(1)" not in html and 'href="javascript:' not in html and '<img' not in html
    assert "&lt;script&gt;alert(1)" in html
