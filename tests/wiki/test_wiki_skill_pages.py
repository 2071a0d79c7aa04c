"""Skill-contributed wiki pages through `aiagent wiki`: a project skill triggered by the
project's files adds pages under skill-contributed/ and a file classifier; its hostile
template text stays inert in the built MkDocs site; templates outside the skill's folder
are skipped with a note; disabled and untriggered skills add nothing; --skills names one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_wiki_cli import make_repo, one_error, wiki_pages

MKDOCS = Path(sys.executable).with_name("mkdocs")

K8S = """name: k8s
version: 1.0.0
description: Kubernetes notes
types: [prompt]
triggers:
  files: ["deploy/*.yaml"]
wiki:
  sections:
    - {title: "Kubernetes architecture", template: wiki/k8s.md}
    - {title: "Stolen", template: ../../../../../etc/hostname}
    - {title: "Linked out", template: wiki/link.md}
    - {title: "../../escape attempt", template: wiki/k8s.md}
  classifiers:
    - {kind: build, files: ["deploy/*.yaml"]}
"""
TEMPLATE = """# Kubernetes architecture

The deployment runs <script>alert(1)</script> two pods. [Docs](https://kubernetes.io/docs/)
and [click](javascript:alert(2)) and ![tracker](http://e.invalid/t.png) and <img src=x onerror=alert(3)>.

[ref]: javascript:alert(4)

```yaml
kind: Deployment   # <b>kept as code</b>
```

Inline `<b>code</b>` stays code.
"""
LATER = """name: later
version: 1.0.0
description: Only when asked
types: [prompt]
triggers:
  files: ["*.nothing"]
wiki:
  sections:
    - {title: "Later page", template: page.md}
"""


def add_skills(repo: Path) -> None:
    skill = repo / ".agent" / "skills" / "k8s"
    (skill / "wiki").mkdir(parents=True)
    (skill / "SKILL.yaml").write_text(K8S)
    (skill / "wiki" / "k8s.md").write_text(TEMPLATE)
    (repo / "outside.md").write_text("SECRET OUTSIDE TEXT\n")
    (skill / "wiki" / "link.md").symlink_to(repo / "outside.md")
    later = repo / ".agent" / "skills" / "later"
    later.mkdir()
    (later / "SKILL.yaml").write_text(LATER)
    (later / "page.md").write_text("Asked for by name.\n")
    (repo / "deploy").mkdir()
    (repo / "deploy" / "app.yaml").write_text("kind: Deployment\n")


def test_skill_pages_and_classifier(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    add_skills(repo)
    out = tmp_path / "site"
    proc = run_cli("wiki", str(repo), "-o", str(out), "--format", "mkdocs", "--no-security")
    assert proc.returncode == 0, proc.stderr
    assert "wiki.sections[1]: template '../../../../../etc/hostname' is outside the skill's folder" in proc.stderr
    assert "wiki.sections[2]: template 'wiki/link.md' is outside the skill's folder" in proc.stderr
    pages = wiki_pages(out / "docs")
    contributed = sorted(p for p in pages if p.startswith("skill-contributed/"))
    assert contributed == ["skill-contributed/escape-attempt.md", "skill-contributed/kubernetes-architecture.md"]
    page = pages["skill-contributed/kubernetes-architecture.md"]
    assert "Contributed by the skill `k8s` (file deploy/app.yaml)" in page
    assert "SECRET OUTSIDE TEXT" not in "".join(pages.values())
    assert "&lt;script>alert(1)" in page and "[Docs](https://kubernetes.io/docs/)" in page
    assert "javascript:alert(2)" not in page and "(http://e.invalid" not in page
    assert "kind: Deployment   # <b>kept as code</b>" in page and "`<b>code</b>`" in page
    assert "deploy/app.yaml" in pages["code-structure/overview.md"].split("## Build files")[1].split("##")[0]
    assert "Later page" not in "".join(pages.values())
    assert "skill-contributed/kubernetes-architecture.md" in (out / "mkdocs.yml").read_text()
    built = subprocess.run([str(MKDOCS), "build", "--strict", "-q", "-d", str(tmp_path / "html")],
                           cwd=out, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    html = (tmp_path / "html" / "skill-contributed" / "kubernetes-architecture" / "index.html").read_text()
    assert "<script>alert" not in html and "href=\"javascript:" not in html and "<img" not in html
    assert 'href="https://kubernetes.io/docs/"' in html and "<b>kept as code</b>" not in html


def test_disabled_skill_adds_nothing_and_named_skill_does(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    add_skills(repo)
    (repo / ".agent" / "skills-state.json").write_text(json.dumps({"disabled": ["k8s"]}))
    proc = run_cli("wiki", str(repo), "--no-security", "--skills", "later")
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(repo / "docs" / "wiki")
    assert [p for p in pages if p.startswith("skill-contributed/")] == ["skill-contributed/later-page.md"]
    assert "Asked for by name." in pages["skill-contributed/later-page.md"]
    assert "no skill named 'nope'" in one_error(run_cli("wiki", str(repo), "--skills", "later,nope"))
    assert "k8s is disabled" in one_error(run_cli("wiki", str(repo), "--skills", "k8s"))


def test_inert_markdown_unit() -> None:
    from aiagent.engines.wiki.skillpages import inert_markdown

    text = inert_markdown("a <b>x</b> [y](/etc/passwd) [z](mailto:a@b.c)\n```\n<i>\n")
    assert text == "a &lt;b>x&lt;/b> y [z](mailto:a@b.c)\n```\n<i>\n```\n"
