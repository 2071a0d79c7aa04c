"""Where the mkdocs and Hugo sites get Mermaid: ``--mermaid-js FILE``, else ``[wiki] mermaid_js``
in config.toml (copied into the site, which then names no CDN), else jsDelivr — and the run
says so. A file that is not a Mermaid script is refused in one line before any analysis.
(The sites built and drawn offline in Chromium: test_wiki_of_this_repository.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_wiki_cli import make_repo

CDN = "cdn.jsdelivr.net"
SCRIPT = "/* a stand-in for mermaid.min.js */ window.mermaid = {};\n"


def user_config(clean_env: dict[str, str], text: str) -> None:
    folder = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def test_the_configured_mermaid_is_carried_by_the_hugo_site(run_cli, clean_env, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    (repo / "vendor").mkdir()
    (repo / "vendor" / "mermaid.min.js").write_text(SCRIPT)
    user_config(clean_env, '[wiki]\nmermaid_js = "vendor/mermaid.min.js"\n')  # relative: to PATH
    out = tmp_path / "site"
    proc = run_cli("wiki", str(repo), "-o", str(out), "--format", "hugo", "--no-model", "--no-security")
    assert proc.returncode == 0, proc.stderr
    assert (out / "static" / "js" / "mermaid.min.js").read_text() == SCRIPT
    assert CDN not in (out / "hugo.toml").read_text() and 'mermaid = "js/mermaid.min.js"' in (out / "hugo.toml").read_text()
    assert "jsDelivr" not in proc.stderr
    assert f"site: to view it: cd {out.resolve()} && hugo server" in proc.stderr


def test_the_flag_wins_over_the_config(run_cli, clean_env, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    given = tmp_path / "given.js"
    given.write_text(SCRIPT.replace("stand-in", "given"))
    user_config(clean_env, '[wiki]\nmermaid_js = "~/missing/mermaid.min.js"\n')
    out = tmp_path / "site"
    proc = run_cli("wiki", str(repo), "-o", str(out), "--format", "mkdocs", "--no-model", "--no-security",
                   "--mermaid-js", str(given))
    assert proc.returncode == 0, proc.stderr
    assert "given" in (out / "docs" / "assets" / "mermaid.min.js").read_text()
    assert CDN not in (out / "mkdocs.yml").read_text()


def test_without_a_local_mermaid_the_run_says_the_site_needs_the_cdn(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    out = tmp_path / "site"
    proc = run_cli("wiki", str(repo), "-o", str(out), "--format", "mkdocs", "--no-model", "--no-security")
    assert proc.returncode == 0, proc.stderr
    assert CDN in (out / "mkdocs.yml").read_text()
    notes = [line for line in proc.stderr.splitlines() if "jsDelivr" in line]
    assert len(notes) == 1 and "[wiki] mermaid_js" in notes[0] and "--mermaid-js" in notes[0]
    plain = run_cli("wiki", str(repo), "-o", str(tmp_path / "md"), "--no-model", "--no-security")
    assert "jsDelivr" not in plain.stderr and "site:" not in plain.stderr  # plain Markdown: no site


@pytest.mark.parametrize(("name", "text", "why"), [
    ("mermaid.min.js", None, "no such file"),
    ("id_rsa", "mermaid -----BEGIN OPENSSH PRIVATE KEY-----", "not a Mermaid script"),
    ("other.js", "console.log(1)", "not a Mermaid script")])
def test_a_wrong_file_is_refused_before_anything_is_written(run_cli, clean_env, tmp_path: Path, name: str,
                                                            text: str | None, why: str) -> None:
    repo = make_repo(tmp_path / "demo")
    bad = tmp_path / name
    if text is not None:
        bad.write_text(text)
    user_config(clean_env, f"[wiki]\nmermaid_js = {str(bad)!r}\n")
    out = tmp_path / "site"
    proc = run_cli("wiki", str(repo), "-o", str(out), "--format", "hugo", "--no-model")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == f"aiagent: error: {bad}: " + (
        "no such file (--mermaid-js and [wiki] mermaid_js want a mermaid.min.js)" if why == "no such file"
        else "not a Mermaid script (a mermaid.min.js, e.g. from the npm package mermaid)")
    assert "wiki: scan:" not in proc.stderr and not out.exists()
