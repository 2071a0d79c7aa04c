from __future__ import annotations

import pytest

from aiagent.agent.permissions import commands as sw


def _cmd(text: str) -> sw.SimpleCommand:
    line = sw.parse(text)
    assert line.analysed and len(line.commands) == 1
    return line.commands[0]


@pytest.mark.parametrize("text", [
    "npm test",
    "npm test -- --watch=false",
    "CI=1 npm test",
    "env CI=1 NODE_ENV=test npm test",
    "/usr/bin/npm test",
    "cd web && npm test",
    "cd 'my dir' && CI=true /usr/local/bin/npm test --silent",
])
def test_npm_test_grant_covers_variants(text: str) -> None:
    line = sw.parse(text)
    assert line.analysed
    assert all(sw.covers("npm test", c) for c in line.commands)


@pytest.mark.parametrize("text", ["npm publish", "npm testing", "npx test", "npm"])
def test_npm_test_grant_does_not_cover(text: str) -> None:
    assert not sw.covers("npm test", _cmd(text))


def test_compound_lines_split_into_simple_commands() -> None:
    line = sw.parse("npm test && npm publish; echo done | tee log\nls")
    assert [c.argv[0:2] for c in line.commands] == [
        ("npm", "test"), ("npm", "publish"), ("echo", "done"), ("tee", "log"), ("ls",)]


def test_unanalysable_lines() -> None:
    for text in ["echo $(rm -rf /)", "echo `id`", "(cd x; rm y)", "cat <<EOF\nx\nEOF", "echo 'open",
                 "FOO=bar npm test", "bash -c 'rm -rf /'", "ls a\\\nb", "ls\rrm x"]:
        assert not sw.parse(text).analysed, text


def test_redirections_are_writes() -> None:
    assert _cmd("npm test > out.txt").writes == ("out.txt",)
    assert _cmd("npm test 2>/dev/null").writes == ()
    assert _cmd("npm test 2>&1").argv == ("npm", "test")


def test_suggested_prefixes() -> None:
    assert sw.suggest_prefix(_cmd("npm test -- --watch=false")) == "npm test"
    assert sw.suggest_prefix(_cmd("git commit -m 'x y'")) == "git commit"
    assert sw.suggest_prefix(_cmd("pytest tests/ -q")) == "pytest"
    assert sw.suggest_prefix(_cmd("ls -la")) == "ls"
    assert sw.suggest_prefix(_cmd("python script.py --x")) == "python script.py --x"
    assert sw.suggest_prefix(_cmd("bash script.sh")) == "bash script.sh"


@pytest.mark.parametrize("text,expected", [
    ("npm --silent test", "npm --silent test"),  # options before the sub-command: exact
    ("npm test", "npm test"),
    ("CI=1 nice -n 5 /usr/bin/npm test -- -x", "npm test"),
    ("find . -name '*.py'", "find . -name '*.py'"),  # argument-level rules: exact
    ("git log --oneline -5", "git log --oneline -5"),
    ("git --no-pager status", "git status"),
    ("sed -n 1p x", "sed -n 1p x"),
    ("./gradlew test", "./gradlew test"),
])
def test_always_never_saves_a_wider_prefix(text: str, expected: str) -> None:
    assert sw.suggest_prefix(_cmd(text)) == expected
    saved = sw.suggest_prefix(_cmd(text))
    assert not sw.covers(saved, _cmd("npm pkg set scripts.test=x"))


@pytest.mark.parametrize("text,expected", [
    ("ls -la", True), ("git status", True), ("git log --oneline | head -5", True),
    ("grep -rn foo src", True), ("find . -name '*.py'", True),
    ("find . -delete", False), ("git push", False), ("ls > files.txt", False),
    ("rm -rf x", False), ("cat x && rm y", False), ("echo $(id)", False), ("sort -o out x", False),
])
def test_read_only_allowlist(text: str, expected: bool) -> None:
    assert sw.is_read_only(sw.parse(text)) is expected


def test_contains_words_for_unanalysed_lines() -> None:
    assert sw.contains_words("echo $(git push origin)", "git push")
    assert not sw.contains_words("echo $(git status)", "git push")
