"""Shell command lines as the approval policy sees them.

The line is parsed with tree-sitter-bash (:mod:`aiagent.agent.permissions.bash_syntax`). It is
*analysed* (eligible for auto-approval) only when it is nothing but simple commands joined
by ``&&``, ``||``, ``;``, ``|`` and new lines, with literal words, and every command can be
matched exactly: no substitution, expansion, subshell, here-document, ``eval``, ``sudo``,
``xargs``, ``find -exec``, ``sh -c``, git ``-c``, glob, or variable that picks what runs.
Each simple command is normalised: leading ``VAR=value`` assignments (safe names only),
wrappers (``env``, ``nice``, ``timeout``, ``command``, …, data in ``commands.toml``) and
``cd`` steps are dropped, an absolute program path is folded to its name and git's harmless
global options are skipped. A grant for ``npm test`` then covers
``CI=1 /usr/bin/npm test -- --watch=false`` but not ``npm publish``, ``./npm test`` or
``npm --silent test``. Deny rules are checked against every command anywhere in the line,
inside and outside wrappers, with program names folded to their base name (``./rm``,
``/bin/r[m]``): see :func:`denies`.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from aiagent.agent.permissions.bash_syntax import Line, RawCommand, Word, decode_ansi_c, read_line

HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
OUTPUT_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
FD_DUPS = frozenset({">&", "<&"})
CD = frozenset({"cd", "pushd", "popd"})
SUBCOMMAND = re.compile(r"^[A-Za-z][A-Za-z0-9:._-]*$")
MAX_DEPTH = 4
MAX_LOOSE = 64


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One command after normalisation. ``argv`` is what rules match (wrappers and
    assignments gone, ``/usr/bin/npm`` → ``npm``, git's harmless options skipped)."""

    argv: tuple[str, ...]
    writes: tuple[str, ...] = ()  # redirect targets other than /dev/null and descriptors
    parts: tuple[Word, ...] = ()  # the words that run, after wrappers (program as written)
    via: tuple[str, ...] = ()  # wrappers unwrapped, outermost first
    blockers: tuple[str, ...] = ()  # why no grant may cover it
    stdin_args: bool = False  # xargs: more arguments come from stdin
    pager: bool = False  # git -p
    views: tuple[tuple[Word, ...], ...] = ()  # what deny rules are checked against

    @property
    def text(self) -> str:
        return shlex.join(self.argv)

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(w.value or "" for w in self.parts)

    @property
    def grantable(self) -> bool:
        return bool(self.argv) and not self.blockers and not self.stdin_args \
            and not any(w.expands for w in self.parts)


@dataclass(frozen=True, slots=True)
class CommandLine:
    raw: str
    commands: tuple[SimpleCommand, ...] = field(default=())
    analysed: bool = True
    problems: tuple[str, ...] = ()  # why the line is not plain bash we can follow
    seen: tuple[SimpleCommand, ...] = ()  # every command anywhere in the line (for denies)

    @property
    def plain(self) -> bool:
        return not self.problems


@cache
def _data(name: str = "commands.toml") -> dict[str, Any]:
    text = resources.files("aiagent.agent.permissions").joinpath(name).read_text("utf-8")
    return tomllib.loads(text)


def parse(command: str) -> CommandLine:
    return _analyse(command, 0)


@lru_cache(maxsize=512)
def _analyse(command: str, depth: int) -> CommandLine:
    line: Line = read_line(command)
    problems = list(line.problems)
    commands = [c for c in (_normalise(r, depth) for r in line.plain) if c is not None]
    seen = [c for c in (_normalise(r, depth, keep_cd=True) for r in line.everywhere)
            if c is not None]
    if problems:
        commands = []
    analysed = not problems and all(c.grantable for c in commands)
    return CommandLine(command, tuple(commands), analysed, tuple(problems), tuple(seen))


# ---- normalising one command ------------------------------------------------------------


def _normalise(raw: RawCommand, depth: int, keep_cd: bool = False) -> SimpleCommand | None:
    blockers = [f"sets {name}" for name, value in raw.assignments
                if value.value is None or not _safe_variable(name)]
    writes = _writes(raw, blockers)
    if not raw.words:
        return SimpleCommand((), writes, blockers=(*blockers, "no command"))
    parts, via, flags = _unwrap(list(raw.words), blockers)
    views = [raw.words, *flags.pop("views", [])]
    argv = _argv(parts, blockers)
    pager = False
    if argv and argv[0] == "git":
        argv, pager = _git(argv, blockers)
        views.append((parts[0], *(Word(a) for a in argv[1:])))
    if argv:
        views += _nested(argv, parts, blockers, depth)
    if argv and argv[0] in CD and not writes and not blockers and not keep_cd:
        return None
    return SimpleCommand(tuple(argv), writes, tuple(parts), tuple(via),
                         tuple(dict.fromkeys(blockers)), bool(flags.get("stdin_args")),
                         pager, tuple(tuple(v) for v in views))


def _safe_variable(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in _data()["environment"]["safe"])


def _writes(raw: RawCommand, blockers: list[str]) -> tuple[str, ...]:
    writes: list[str] = []
    for redirect in raw.redirects:
        target = redirect.target
        if target is None:  # 2>&-
            continue
        if target.value is None or target.expands:
            blockers.append("redirection to a computed name")
        value = target.value or "?"
        if redirect.op in FD_DUPS and (value.isdigit() or value == "-"):
            continue
        if redirect.op in OUTPUT_OPS and value not in HARMLESS_TARGETS:
            writes.append(value)
        elif redirect.op not in OUTPUT_OPS and redirect.op not in ("<", "<&"):
            writes.append(value)  # <> opens for writing; anything unknown counts too
    return tuple(writes)


def _argv(parts: list[Word], blockers: list[str]) -> list[str]:
    if not parts:
        return []
    program = parts[0]
    if program.value is None:
        blockers.append("computed program name")
        return []
    if program.expands:
        blockers.append("glob in the program name")
    name = program.value
    folder, _, base = name.rpartition("/")
    if name.startswith("/") and base and folder.rstrip("/") in _data()["system_dirs"]["dirs"]:
        name = base  # /usr/bin/npm is npm; /tmp/x/npm stays a path, like ./npm
    return [name, *(w.value or "" for w in parts[1:])]


def _base(name: str) -> str:
    return name.rstrip("/").rsplit("/", 1)[-1] or name


# ---- wrappers ---------------------------------------------------------------------------


def _unwrap(parts: list[Word], blockers: list[str]) -> tuple[list[Word], list[str], dict[str, Any]]:
    """Peel ``env``/``nice``/``timeout``/… off; returns the inner words, the wrappers and
    flags (``stdin_args``, extra deny ``views``)."""
    via: list[str] = []
    flags: dict[str, Any] = {"views": []}
    wrappers = _data()["wrappers"]
    for _ in range(16):
        head = parts[0].value if parts else None
        if head is None or (("/" in head) and not head.startswith("/")):
            break
        name = _base(head)
        spec = wrappers.get(name)
        if spec is None:
            break
        start, status, assigned = _scan_options([w.value for w in parts], spec)
        if status in ("stop", "alone"):
            break
        if status == "refuse":
            blockers.append(f"{name} option we do not follow")
        blockers += [f"sets {a}" for a in assigned if not _safe_variable(a)]
        if not spec.get("grantable", True):
            blockers.append(f"runs through {name}")
        if status == "refuse" or not spec.get("grantable", True):
            flags["views"] += _loose_views(parts[1:])
        flags["stdin_args"] = flags.get("stdin_args") or spec.get("stdin_args", False)
        via.append(name)
        parts = parts[start:]
        flags["views"].append(tuple(parts))
    return parts, via, flags


def _scan_options(words: list[str | None], spec: dict[str, Any]) -> tuple[int, str, list[str]]:
    """Index of the wrapped command in ``words`` (``words[0]`` is the wrapper), a status
    (ok, refuse, stop, alone) and the variables assigned on the way (``env A=1``)."""
    i, assigned = 1, list[str]()
    while i < len(words):
        word = words[i]
        if word is None:
            return _skip_dashes(words, i), "refuse", assigned
        if word == "--":
            i += 1
            break
        if spec.get("assignments") and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            assigned.append(word.split("=", 1)[0])
            i += 1
            continue
        if word == "-" and spec.get("assignments") and not assigned:  # env - = env -i
            i += 1
            continue
        if assigned or not word.startswith("-") or word == "-":
            break
        step, verdict = _option(words, i, spec)
        if verdict in ("refuse", "stop"):
            return _skip_dashes(words, i) if verdict == "refuse" else i, verdict, assigned
        i += step
    i += int(spec.get("positional", 0))
    return (i, "alone", assigned) if i >= len(words) else (i, "ok", assigned)


def _skip_dashes(words: list[str | None], i: int) -> int:
    while i < len(words) and (words[i] is None or str(words[i]).startswith("-")):
        i += 1
    return i


def _option(words: list[str | None], i: int, spec: dict[str, Any]) -> tuple[int, str]:
    """How many words the option at ``i`` takes, and ok / refuse / stop."""
    word = str(words[i])
    name = word.split("=", 1)[0]
    if name in spec.get("refuse", []):
        return 1, "refuse"
    if name in spec.get("stop", []):
        return 1, "stop"
    if spec.get("numeric") and re.fullmatch(r"-\d+", word):
        return 1, "ok"
    if word.startswith("--"):
        return _long_option(word, spec)
    return _short_cluster(word, spec)


def _long_option(word: str, spec: dict[str, Any]) -> tuple[int, str]:
    name, eq, _ = word[2:].partition("=")
    flags, values = spec.get("long_flags", []), spec.get("long_values", [])
    refused = [r[2:] for r in spec.get("refuse", []) + spec.get("stop", []) if r.startswith("--")]
    if any(r.startswith(name) for r in refused):
        return 1, "refuse"
    exact = [o for o in flags + values if o == name]
    matches = exact or [o for o in flags + values if o.startswith(name)]
    if len(matches) != 1:
        return 1, "refuse"
    if matches[0] in values and not eq:
        return 2, "ok"
    return 1, "ok"


def _short_cluster(word: str, spec: dict[str, Any]) -> tuple[int, str]:
    refused = {r[1] for r in spec.get("refuse", []) + spec.get("stop", [])
               if len(r) == 2 and r[0] == "-"}
    for j, letter in enumerate(word[1:]):
        if letter in refused:
            return 1, "refuse"
        if letter in spec.get("short_optional", ""):
            return 1, "ok"
        if letter in spec.get("short_values", ""):
            return (2, "ok") if j == len(word) - 2 else (1, "ok")
        if letter not in spec.get("short_flags", ""):
            return 1, "refuse"
    return 1, "ok"


# ---- git, nested code ---------------------------------------------------------------------


def _git(argv: list[str], blockers: list[str]) -> tuple[list[str], bool]:
    """``git [global options] SUB …`` → ``git SUB …``; records unsafe options."""
    spec = _data()["git"]
    i, pager = 1, False
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        name = argv[i].split("=", 1)[0]
        if name in spec["harmless_flags"]:
            i += 1
        elif name in spec["pager_flags"]:
            pager, i = True, i + 1
        elif name in spec["harmless_values"] or name in spec["unsafe"]:
            if name in spec["unsafe"]:
                blockers.append(f"git {name}")
            takes_next = "=" not in argv[i] and not (name == "-c" and len(argv[i]) > 2) \
                and name not in ("--exec-path", "--list-cmds")
            i += 2 if takes_next else 1
        else:
            blockers.append(f"git option {argv[i]}")
            i += 1
    return ["git", *argv[i:]], pager


def _nested(argv: list[str], parts: list[Word], blockers: list[str],
            depth: int) -> list[tuple[Word, ...]]:
    """Commands that a command runs from its arguments (``sh -c``, ``find -exec``), as
    extra deny views; such commands are never covered by a grant."""
    code = _data()["code"]
    name = argv[0] if "/" not in argv[0] else _base(argv[0])
    views: list[tuple[Word, ...]] = []
    if name in code["programs"] or name in code["reserved"]:
        blockers.append(f"{name} runs code we cannot see")
        views += _code_views(" ".join(argv[1:]), depth) + _loose_views(parts[1:])
    elif name in code["shells"]:
        script = _shell_script(argv)
        if script is not None:
            blockers.append(f"{name} -c runs code")
            views += _code_views(script, depth)
    elif name == "find":
        views += _find_exec(parts, code["find_exec"], blockers)
    return views


def _shell_script(argv: list[str]) -> str | None:
    for i, word in enumerate(argv[1:], 1):
        if word == "--" or not word.startswith(("-", "+")):
            return None
        if "c" in word[1:] and not word.startswith("--"):
            rest = [w for w in argv[i + 1 :] if not w.startswith(("-", "+"))]
            return rest[0] if rest else ""
    return None


def _code_views(script: str, depth: int) -> list[tuple[Word, ...]]:
    if depth >= MAX_DEPTH:
        return [(Word(None),)]
    inner = _analyse(script, depth + 1)
    views = [v for c in inner.seen for v in c.views]
    if inner.problems:
        views += _loose_views([Word(script)])
    return views


def _loose_views(parts: list[Word] | tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """Every run of tokens in ``parts`` as a deny view: any of them may be a program."""
    tokens: list[Word] = []
    for word in parts[:MAX_LOOSE]:
        if word.value is None:
            tokens.append(word)
        else:
            tokens += [Word(t) for t in TOKEN_SPLIT.split(word.value) if t]
    return [tuple(tokens[i:]) for i in range(len(tokens))]


def _find_exec(parts: list[Word], options: list[str], blockers: list[str]) -> list[tuple[Word, ...]]:
    views: list[tuple[Word, ...]] = []
    for i, word in enumerate(parts):
        if word.value in options:
            blockers.append(f"find {word.value}")
            end = next((j for j in range(i + 1, len(parts)) if parts[j].value in (";", "+")),
                       len(parts))
            if i + 1 < end:
                views.append(tuple(parts[i + 1 : end]))
    return views


# ---- matching -----------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _prefix_words(prefix: str) -> tuple[str, ...] | None:
    line = parse(prefix)
    if line.plain and len(line.seen) == 1 and line.seen[0].argv \
            and all(w.value is not None for w in line.seen[0].parts):
        return line.seen[0].argv
    try:
        return tuple(shlex.split(prefix))
    except ValueError:
        return None


def covers(prefix: str, command: SimpleCommand) -> bool:
    """True when the saved ``prefix`` (normalised words) starts ``command``'s words."""
    words = _prefix_words(prefix)
    if words is None:
        return False
    return command.argv[: len(words)] == words


def denies(prefix: str, line: CommandLine) -> bool:
    """True when a deny rule for ``prefix`` applies to any part of ``line``: any command
    anywhere in it (in substitutions, subshells, behind wrappers, ``find -exec``,
    ``sh -c``), program names compared by base name and glob, a computed program name
    matching every rule; for lines that are not plain bash, also a search for the words."""
    words = _prefix_words(prefix)
    if words is None:
        return False
    if not words:
        return True
    if any(_view_matches(words, view) for c in line.seen for view in c.views):
        return True
    return bool(line.problems) and _word_search(line.raw, words)


def _view_matches(words: tuple[str, ...], view: tuple[Word, ...]) -> bool:
    if not view:
        return False
    head = view[0]
    if head.value is None:
        return True  # computed at run time: it could be anything
    if len(view) < len(words):
        return False
    if not _word_matches(_base(words[0]), Word(_base(head.value), _glob_base(head))):
        return False
    return all(_word_matches(w, v) for w, v in zip(words[1:], view[1:], strict=False))


def _glob_base(word: Word) -> str | None:
    return _base(word.pattern) if word.pattern is not None else None


def _word_matches(expected: str, word: Word) -> bool:
    if word.value is None:
        return True
    if word.pattern is not None:
        return fnmatch.fnmatchcase(expected, word.pattern)
    return word.value == expected


ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'")
TOKEN_SPLIT = re.compile(r"[\s;&|()<>`{}=$]+")


def _word_search(raw: str, words: tuple[str, ...]) -> bool:
    """Conservative fallback: do the words occur in a row, quotes and backslashes removed?"""
    text = ANSI_C.sub(lambda m: decode_ansi_c(m.group(1)) or m.group(1), raw)
    tokens = [t.replace("\\", "").replace("'", "").replace('"', "")
              for t in TOKEN_SPLIT.split(text)]
    tokens = [_base(t) if "/" in t else t for t in tokens if t]
    want = (_base(words[0]), *words[1:])
    for i in range(len(tokens) - len(want) + 1):
        if all(fnmatch.fnmatchcase(w, t) if any(c in t for c in "*?[") else w == t
               for w, t in zip(want, tokens[i : i + len(want)], strict=True)):
            return True
    return False


def approved(line: CommandLine, prefixes: Iterable[str]) -> bool:
    """True when every command of an analysed line is covered by one of the allow
    ``prefixes`` (and writes no file) or is read-only on its own."""
    if not line.analysed and not is_read_only(line):
        return False
    if not line.commands:
        return False
    rules = list(prefixes)
    return all(_read_only(c) or (c.grantable and not c.writes and any(covers(p, c) for p in rules))
               for c in line.commands)


def contains_words(raw: str, prefix: str) -> bool:
    """Does a deny rule for ``prefix`` apply to ``raw`` (any line, analysed or not)?"""
    return denies(prefix, parse(raw))


# ---- what "always" saves, read-only ------------------------------------------------------


def suggest_prefix(command: SimpleCommand) -> str:
    """What an "always" answer saves: program and sub-command (``npm test``); the whole
    command when options come before the sub-command (``npm --silent test``), for
    interpreters and launchers, and for programs with argument-level rules (``find``)."""
    argv = command.argv
    if not argv:
        return ""
    program = argv[0]
    readonly = _data("readonly.toml")["programs"]
    rules = readonly.get(program)
    if program in _data()["grants"]["exact"] or (rules and not rules.get("subcommands")):
        return shlex.join(argv)
    if len(argv) > 1 and argv[1].startswith("-"):
        return shlex.join(argv[:1] if rules == {} else argv)
    if len(argv) > 1 and SUBCOMMAND.match(argv[1]) and "." not in argv[1]:
        if rules and argv[1] in rules.get("sub", {}):
            return shlex.join(argv)
        return shlex.join(argv[:2])
    return shlex.join(argv[:1])


def is_read_only(line: CommandLine) -> bool:
    """True when every simple command is on the read-only list with arguments that neither
    write nor run anything, and nothing is redirected to a file."""
    if not line.plain or not line.commands:
        return False
    return all(_read_only(c) for c in line.commands)


def _read_only(command: SimpleCommand) -> bool:
    if command.writes or command.pager or command.blockers or not command.argv:
        return False
    programs = _data("readonly.toml")["programs"]
    rules = programs.get(command.argv[0])
    if rules is None or "/" in command.argv[0]:
        return False
    args = list(command.argv[1:])
    if "subcommands" in rules:
        if not args or args[0] not in rules["subcommands"]:
            return False
        rules, args = rules.get("sub", {}).get(args[0], {}), args[1:]
    any_args = not rules and "subcommands" not in programs[command.argv[0]]
    if command.stdin_args and not any_args:
        return False
    if not _globs_ok(command.parts[1:], any_args, rules):
        return False
    return not _forbidden(args, rules)


def _globs_ok(parts: tuple[Word, ...], any_args: bool, rules: dict[str, Any]) -> bool:
    """Globs may expand to any file name in the folder, ``-delete`` too."""
    for word in parts:
        if not word.expands or any_args:
            continue
        if word.pattern is not None and ("max_operands" in rules or
                                         (word.value or "-")[0] in "*?[-"):
            return False
    return True


def _forbidden(args: list[str], rules: dict[str, Any]) -> bool:
    short, short_values = rules.get("short", ""), rules.get("short_values", "")
    long, long_values = rules.get("long", []), rules.get("long_values", [])
    operands, i, options_end = 0, 0, False
    while i < len(args):
        arg = args[i]
        i += 1
        if options_end or arg == "-" or not arg.startswith("-"):
            operands += 1
        elif arg == "--":
            options_end = True
        elif arg in rules.get("words", []):
            return True
        elif arg.startswith("--"):
            name = arg[2:].split("=", 1)[0]
            if any(option.startswith(name) for option in long):
                return True
            if "=" not in arg and any(v.startswith(name) for v in long_values):
                i += 1
        else:
            for j, letter in enumerate(arg[1:]):
                if letter in short:
                    return True
                if letter in short_values:
                    i += int(j == len(arg) - 2)
                    break
    limit: int = rules.get("max_operands", operands)
    return operands > limit
