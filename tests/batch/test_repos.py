"""The repositories file: folders, URLs with refs, ranges and files; bad lines are one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiagent.app.batch.repos import ReposFileError, read_repos


def test_lines_give_folders_urls_and_options(tmp_path: Path) -> None:
    listed = tmp_path / "repos.txt"
    listed.write_text(
        "# a comment\n\nproj\n"
        "https://example.com/org/web.git ref=v2.1  # trailing comment\n"
        "git@example.com:org/api.git range=HEAD~2..HEAD\n"
        "/srv/box files=logs/a.log,b.log\n")
    specs = read_repos(listed)
    assert [s.source for s in specs] == [str(tmp_path / "proj"), "https://example.com/org/web.git",
                                         "git@example.com:org/api.git", "/srv/box"]
    assert [s.is_url for s in specs] == [False, True, True, False]
    assert specs[1].ref == "v2.1" and specs[2].range == "HEAD~2..HEAD"
    assert specs[3].files == ("logs/a.log", "b.log")
    assert specs[1].name.startswith("web-") and specs[2].name.startswith("api-")
    assert len({s.name for s in specs}) == 4


@pytest.mark.parametrize("line, words", [
    ("repo colour=blue", "expected one of"),
    ("repo range=HEAD", "expected A..B"),
    ("repo files=../etc/passwd", "a path inside the repository"),
    ("ext::sh%-c%touch%/tmp/x", "ext:: URLs run a command"),
])
def test_a_bad_line_names_its_file_and_line(tmp_path: Path, line: str, words: str) -> None:
    listed = tmp_path / "repos.txt"
    listed.write_text(f"ok\n{line}\n")
    with pytest.raises(ReposFileError, match=words) as caught:
        read_repos(listed)
    assert f"{listed}:2:" in str(caught.value) and "\n" not in str(caught.value)


def test_an_empty_or_duplicated_list_is_refused(tmp_path: Path) -> None:
    listed = tmp_path / "repos.txt"
    listed.write_text("# nothing\n")
    with pytest.raises(ReposFileError, match="no repository listed"):
        read_repos(listed)
    listed.write_text("a\n./a\n")
    with pytest.raises(ReposFileError, match="listed twice"):
        read_repos(listed)
