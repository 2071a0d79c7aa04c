"""The security pages of FR-3.x and the security/performance suggestions are written from
the offline audit and the code model; skill templates get their placeholders filled."""

from __future__ import annotations

from pathlib import Path


def test_security_and_suggestion_pages(run_cli, tmp_path: Path) -> None:
    from test_wiki_cli import make_repo, wiki_pages

    repo = make_repo(tmp_path / "demo")
    (repo / "app" / "db.py").write_text("import os\nimport sqlite3\n\n\ndef find(name):\n"
                                        "    con = sqlite3.connect('x')\n"
                                        "    return con.execute(\"SELECT * FROM t WHERE n = '%s'\" % name)\n\n\n"
                                        "def run(cmd):\n    os.system(cmd)\n")
    proc = run_cli("wiki", str(repo), "--no-model", timeout=300)
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(repo / "docs" / "wiki")
    for name in ("auth-review", "data-flow", "recommendations", "sbom"):
        assert f"security/{name}.md" in pages
        assert f"({name}.md)" in pages["security/overview.md"]
    assert "## Findings by area" in pages["security/overview.md"]
    assert "app/db.py" in pages["security/data-flow.md"]
    assert "| high |" in pages["security/recommendations.md"] or "| critical |" in pages["security/recommendations.md"]
    assert "`discount`" in pages["suggestions/performance.md"]
    assert "| app |" in pages["suggestions/security.md"]


def test_template_placeholders() -> None:
    from aiagent.engines.wiki.skillpages import fill

    values = {"project_name": "demo <b>", "module_count": "3"}
    assert fill("# {{ project_name }} has {{module_count}} modules; {{ other }} stays", values) == \
        "# demo <b> has 3 modules; {{ other }} stays"
