"""The manifest: a re-run names only the modules whose files, or whose dependencies' public
API, changed; ``--full`` names every module; the manifest is written with the wiki."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_wiki_cli import make_repo


def analysed(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.startswith("wiki: analyse:")]
    assert len(lines) == 1, stderr
    return lines[0]


def test_only_the_changed_module_is_reanalysed(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    first = run_cli("wiki", str(repo), "--no-security")
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"wiki: analyse: all \d+ modules \(first run\)", analysed(first.stderr))
    manifest = json.loads((repo / "docs" / "wiki" / ".aiagent-wiki.json").read_text())
    assert {"app", "app-core", "web", "tests"} <= set(manifest["modules"])

    same = run_cli("wiki", str(repo), "--no-security")
    assert analysed(same.stderr) == "wiki: analyse: 0 changed modules; reused 4"

    util = repo / "web" / "util.js"  # a body change: web only, nobody's API moved
    util.write_text(util.read_text().replace("${last}", "${last}!"))
    body = run_cli("wiki", str(repo), "--no-security")
    assert analysed(body.stderr) == "wiki: analyse: 1 changed modules: web; reused 3"

    prices = repo / "app" / "core" / "prices.py"  # a signature change: its importers too
    prices.write_text(prices.read_text().replace("rate: float = 0.1", "rate: float = 0.2, *, cap: int = 0"))
    api = run_cli("wiki", str(repo), "--no-security")
    assert analysed(api.stderr) == "wiki: analyse: 3 changed modules: app, app-core, tests; reused 1"

    full = run_cli("wiki", str(repo), "--no-security", "--full")
    assert analysed(full.stderr) == "wiki: analyse: all 4 modules (--full)"


def test_a_damaged_manifest_means_a_full_run(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    assert run_cli("wiki", str(repo), "--no-security").returncode == 0
    (repo / "docs" / "wiki" / ".aiagent-wiki.json").write_text("{not json")
    proc = run_cli("wiki", str(repo), "--no-security")
    assert proc.returncode == 0 and "(first run)" in analysed(proc.stderr)
