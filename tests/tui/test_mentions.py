"""@path mentions: completion candidates and attachments."""

from __future__ import annotations

import subprocess
from pathlib import Path

from aiagent.frontends.tui.mentions import attach_mentions, list_files, rank, with_dirs


def make_tree(root: Path) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "main.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# readme\n")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "index.js").write_text("")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret").write_text("")


def test_walk_skips_hidden_and_bulky_folders(tmp_path: Path) -> None:
    make_tree(tmp_path)
    assert list_files(tmp_path) == ["README.md", "src/pkg/main.py"]


def test_git_repository_honours_gitignore(tmp_path: Path) -> None:
    make_tree(tmp_path)
    (tmp_path / ".gitignore").write_text("README.md\nnode_modules/\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    files = list_files(tmp_path)
    assert "README.md" not in files and "src/pkg/main.py" in files and ".gitignore" in files


def test_rank_prefers_name_matches() -> None:
    paths = with_dirs(["src/pkg/main.py", "docs/maintenance.md", "tests/test_main.py"])
    assert rank(paths, "main")[:2] == ["src/pkg/main.py", "docs/maintenance.md"]
    assert rank(paths, "src/p") == ["src/pkg/", "src/pkg/main.py"]
    assert "src/" in rank(paths, "")


def test_attach_files_and_folders(tmp_path: Path) -> None:
    make_tree(tmp_path)
    text, attached = attach_mentions("explain @src/pkg/main.py and @src/pkg, not @nope", tmp_path)
    assert [a.path for a in attached] == ["src/pkg/main.py", "src/pkg"]
    assert '<file path="src/pkg/main.py">\nprint(\'hi\')\n</file>' in text
    assert '<directory path="src/pkg">\nmain.py\n</directory>' in text
    assert text.startswith("explain @src/pkg/main.py and @src/pkg, not @nope")


def test_no_attachment_outside_the_workspace_or_for_emails(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside.txt").write_text("secret")
    text, attached = attach_mentions("see @../outside.txt or me@example.com", tmp_path / "ws")
    assert attached == [] and text == "see @../outside.txt or me@example.com"
