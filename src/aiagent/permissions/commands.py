"""Shell command lines as the approval policy sees them.

A command line is split into simple commands at ``&&``, ``||``, ``;``, ``|``, ``&`` and new
lines. Each is normalised: leading ``VAR=value`` assignments and ``env VAR=value`` are
dropped, ``cd``/``pushd`` steps are dropped, and a program given by absolute path is folded
to its name (``/usr/bin/npm`` → ``npm``). A grant for ``npm test`` then covers
``CI=1 /usr/bin/npm test -- --watch=false`` but not ``npm publish``, and a line is covered
only when every simple command in it is. Lines with constructs we do not analyse (command
substitution, subshells, here-documents, unbalanced quotes) are never covered by a grant.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

SEPARATORS = {"&&", "||", ";", "|", "&", "|&", ";;"}
REDIRECTS = {">", ">>", "<", ">&", "&>", "<&", ">|", "&>>", "<>"}
HARMLESS_TARGETS = {"/dev/null", "1", "2", "&1", "&2"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SUBCOMMAND = re.compile(r"^[A-Za-z][A-Za-z0-9:._-]*$")
UNANALYSED = ("$(", "`", "<<", "<(", ">(")


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    argv: tuple[str, ...]
    writes: tuple[str, ...] = ()  # redirect targets other than /dev/null and fds

    @property
    def text(self) -> str:
        return shlex.join(self.argv)


@dataclass(frozen=True, slots=True)
class CommandLine:
    raw: str
    commands: tuple[SimpleCommand, ...] = field(default=())
    analysed: bool = True


@cache
def _data() -> dict[str, Any]:
    text = resources.files("aiagent.permissions").joinpath("commands.toml").read_text("utf-8")
    return tomllib.loads(text)


def parse(command: str) -> CommandLine:
    if any(mark in command for mark in UNANALYSED):
        return CommandLine(command, analysed=False)
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes
        return CommandLine(command, analysed=False)
    if "(" in tokens or ")" in tokens:
        return CommandLine(command, analysed=False)
    commands = []
    for chunk in _split(tokens):
        simple = _normalise(chunk)
        if simple is not None:
            commands.append(simple)
    return CommandLine(command, tuple(commands))


def _split(tokens: list[str]) -> list[list[str]]:
    chunks: list[list[str]] = [[]]
    for token in tokens:
        if token in SEPARATORS:
            chunks.append([])
        else:
            chunks[-1].append(token)
    return [c for c in chunks if c]


def _normalise(tokens: list[str]) -> SimpleCommand | None:
    argv: list[str] = []
    writes: list[str] = []
    items = iter(tokens)
    for token in items:
        if token in REDIRECTS:
            if argv and argv[-1].isdigit():  # the "2" of "2>file"
                argv.pop()
            target = next(items, "")
            if token != "<" and token != "<&" and target not in HARMLESS_TARGETS:
                writes.append(target)
            continue
        argv.append(token)
    argv = _strip_prefixes(argv)
    if not argv or argv[0] in ("cd", "pushd", "popd"):
        return None
    if argv[0].startswith("/"):
        argv[0] = argv[0].rsplit("/", 1)[-1]
    return SimpleCommand(tuple(argv), tuple(writes))


def _strip_prefixes(argv: list[str]) -> list[str]:
    while argv and ASSIGNMENT.match(argv[0]):
        argv = argv[1:]
    if len(argv) > 1 and argv[0] in ("env", "/usr/bin/env") and ASSIGNMENT.match(argv[1]):
        argv = argv[1:]
        while argv and ASSIGNMENT.match(argv[0]):
            argv = argv[1:]
    return argv


def covers(prefix: str, command: SimpleCommand) -> bool:
    """True when the saved ``prefix`` (normalised words) starts ``command``'s words."""
    try:
        words = tuple(shlex.split(prefix))
    except ValueError:
        return False
    if not words:
        return True
    head = _normalise(list(words))
    words = head.argv if head is not None else words
    return command.argv[: len(words)] == words


def suggest_prefix(command: SimpleCommand) -> str:
    """What an "always" answer saves: program and sub-command (``npm test``), or the whole
    command for interpreters and launchers, whose arguments are code."""
    argv = command.argv
    if argv[0] in set(_data()["grants"]["exact"]):
        return shlex.join(argv)
    if len(argv) > 1 and SUBCOMMAND.match(argv[1]) and "/" not in argv[1] and "." not in argv[1]:
        return shlex.join(argv[:2])
    return shlex.join(argv[:1])


def is_read_only(line: CommandLine) -> bool:
    """True when every simple command is on the read-only allowlist and nothing is written."""
    if not line.analysed or not line.commands:
        return False
    data = _data()["readonly"]
    for command in line.commands:
        allowed = data["programs"].get(command.argv[0])
        if allowed is None or command.writes:
            return False
        if allowed != "*" and (len(command.argv) < 2 or command.argv[1] not in allowed):
            return False
        forbidden = data["forbidden_args"].get(command.argv[0], [])
        if any(a in forbidden or a.split("=", 1)[0] in forbidden for a in command.argv[1:]):
            return False
    return True


def contains_words(raw: str, prefix: str) -> bool:
    """Best effort for lines we cannot analyse: do the prefix's words occur in a row?"""
    words = prefix.split()
    tokens = re.split(r"[\s;&|()`$<>]+", raw)
    tokens = [t.rsplit("/", 1)[-1] if t.startswith("/") else t for t in tokens if t]
    return any(tokens[i : i + len(words)] == words for i in range(len(tokens)))
