"""Property: whatever the analysis approves runs only what it said would run.

Lines mix approved commands (a grant for ``npm test``; read-only ``ls``, ``git log``) with
separators, quoting, comments, new lines, ``$'…'``, backslashes, substitutions, subshells and
an injected command. When the analysis approves a line, real bash runs it in a folder whose
PATH holds fake programs that log their name and argv (and real wrappers: env, nice, xargs,
find, sort, bash, …); every logged call must be one the analysis listed, and no file in the
folder may change.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aiagent.agent.permissions import commands as sw
from aiagent.agent.tools.shell.tools import split_background

FAKES = ["npm", "ls", "git", "touch", "rm", "tail", "cat", "grep", "head", "wc", "echo2"]
REAL = ["bash", "sh", "env", "nice", "timeout", "nohup", "xargs", "find", "sort", "tee", "uniq"]
FAKE = """#!/bin/sh
f=$(/usr/bin/mktemp "$LOGDIR/call.XXXXXX")
printf '%s\\0' "${0##*/}" "$@" > "$f"
"""

ALLOWED = ["npm test", "npm test -- --watch=false", "ls", "ls -la", "git log --oneline -3",
           "git status", "cat a.txt", "tail -1 a.txt", "CI=1 npm test", "env CI=1 npm test",
           "nice -n 5 npm test", "command ls", "timeout 5 git log", "cd sub", "find . -name a.txt",
           "sort a.txt", "uniq a.txt", "ls | xargs grep x", "git --no-pager log"]
INJECTED = ["touch MARKER", "rm a.txt", "echo hi > MARKER", "ls > MARKER", "sort -o MARKER a.txt",
            "find . -delete", "touch", "rm", "git push", "npm publish", "uniq a.txt MARKER",
            "find . -exec touch MARKER \\;", "ls | xargs touch", "tee MARKER", "npm --silent test"]
SEPARATORS = [" ; ", ";", " && ", " || ", " | ", "\n", " & ", " # ", "#", " #x\n", "", " "]
WRAPS = ["$({})", "`{}`", "( {} )", "{{ {}; }}", "eval '{}'", "bash -c '{}'", "'{}'", '"{}"',
         "$'{}'", "{} &", "\\{}", "x=$({}) ls", "ls <({})", "{} \\\n", "{} <<EOF\nx\nEOF"]
NOISE = ["$'\\n'", "$'\\x3b'", "$'\\''", "'", '"', "\\", "\\;", "$X", "${X}", "$((1))", "#",
         "~", "*", "a*", "{a,b}", "\r", "!", "--", "-x", "2>&1", "2>/dev/null", ">/dev/null"]


def _spell(word: str, how: int) -> str:
    """One word spelled another way bash reads the same."""
    if how == 1:
        return f"'{word}'"
    if how == 2:
        return f'"{word}"'
    if how == 3 and len(word) > 1:
        return word[0] + "\\" + word[1:]
    if how == 4:
        return "$'" + "".join(f"\\x{ord(c):02x}" for c in word) + "'"
    if how == 5 and len(word) > 1:
        return word[:1] + "''" + word[1:]
    return word


@st.composite
def commands(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(ALLOWED * 3 + INJECTED))
    words = text.split(" ")
    hows = draw(st.lists(st.integers(0, 8), min_size=len(words), max_size=len(words)))
    text = " ".join(_spell(w, h) if ">" not in w and "|" not in w else w
                    for w, h in zip(words, hows, strict=True))
    if draw(st.integers(0, 5)) == 0:
        text = draw(st.sampled_from(WRAPS)).format(text)
    if draw(st.integers(0, 4)) == 0:
        text += " " + draw(st.sampled_from(NOISE))
    return text


@st.composite
def lines(draw: st.DrawFn) -> str:
    parts = draw(st.lists(commands(), min_size=1, max_size=4))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(parts), max_size=len(parts)))
    return "".join(p + s for p, s in zip(parts, seps, strict=True)).rstrip(" ")


def _approved(line: sw.CommandLine) -> bool:
    return sw.is_read_only(line) or sw.approved(line, ["npm test"])


def _snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p.relative_to(root)): (p.stat().st_mode, p.read_bytes() if p.is_file() else b"")
            for p in sorted(root.rglob("*"))}


def _calls(logdir: Path) -> list[tuple[str, ...]]:
    calls = [tuple(f.read_bytes().decode().split("\0")[:-1]) for f in logdir.iterdir()]
    for f in logdir.iterdir():
        f.unlink()
    return calls


def _listed(call: tuple[str, ...], line: sw.CommandLine) -> bool:
    for command in line.commands:
        words = command.words
        if not words or words[0].rsplit("/", 1)[-1] != call[0]:
            continue
        args, expected = list(call[1:]), command.parts[1:]
        if command.stdin_args:  # xargs appends words read from stdin
            args = args[: len(expected)]
        if any(w.expands for w in expected):
            if all(any(fnmatch.fnmatchcase(a, w.pattern or w.value or "") or a == w.value
                       or w.tilde for w in expected) for a in args):
                return True
        elif tuple(args) == tuple(w.value for w in expected):
            return True
    return False


@pytest.fixture
def sandbox_dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    fakebin, logdir, work = tmp_path / "bin", tmp_path / "log", tmp_path / "work"
    for folder in (fakebin, logdir, work, work / "sub"):
        folder.mkdir()
    for name in FAKES:
        (fakebin / name).write_text(FAKE)
        (fakebin / name).chmod(0o755)
    for name in REAL:
        real = next(Path(d, name) for d in ("/usr/bin", "/bin") if Path(d, name).exists())
        (fakebin / name).symlink_to(real)
    (work / "a.txt").write_text("x\n")
    return fakebin, logdir, work


def test_approved_lines_run_only_what_was_approved(sandbox_dirs: tuple[Path, Path, Path]) -> None:
    fakebin, logdir, work = sandbox_dirs
    env = {"PATH": str(fakebin), "LOGDIR": str(logdir), "HOME": str(work), "LC_ALL": "C"}
    stats = {"approved": 0, "refused": 0}

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(lines())
    def check(text: str) -> None:
        line = sw.parse(text)
        if not _approved(line):
            stats["refused"] += 1
            return
        stats["approved"] += 1
        before = _snapshot(work)
        script, _ = split_background(text)
        subprocess.run(["/bin/bash", "-c", script], cwd=work, env=env, timeout=20,
                       stdin=subprocess.DEVNULL, capture_output=True)
        calls = _calls(logdir)
        assert _snapshot(work) == before, f"{text!r} changed files"
        for call in calls:
            assert _listed(call, line), f"{text!r} ran {call}, analysis: {line.commands}"

    check()
    assert stats["approved"] >= 40, stats  # the property must be exercised, not vacuous
    assert stats["refused"] >= 40, stats


def test_the_oracle_sees_a_smuggled_command(sandbox_dirs: tuple[Path, Path, Path]) -> None:
    """The harness itself: a line the old tokenizer approved runs touch for real."""
    fakebin, logdir, work = sandbox_dirs
    env = {"PATH": str(fakebin), "LOGDIR": str(logdir), "HOME": str(work)}
    subprocess.run(["/bin/bash", "-c", "npm te#st; touch MARKER"], cwd=work, env=env, check=True)
    assert ("touch", "MARKER") in _calls(logdir)
    assert not _listed(("touch", "MARKER"), sw.parse("npm test"))
    assert os.access(fakebin / "npm", os.X_OK)
