"""A bash command line as tree-sitter-bash sees it: simple commands with their words decoded.

This module knows bash syntax, nothing about programs. ``read_line`` returns every simple
command found anywhere in the line (inside substitutions and subshells too, for deny rules)
and says whether the line is *plain*: nothing but simple commands joined by ``&&``, ``||``,
``;``, ``|``, ``|&`` and new lines (and one trailing ``&``, which the shell tool turns into a
background job), every word literal after quote removal, no parse error. A word whose value
bash computes at run time (parameter, command, arithmetic expansion, brace expansion) has
``value=None``; a glob or tilde word keeps its text and says it expands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

CONTAINERS = frozenset({"program", "list", "pipeline", "negated_command"})
JOINERS = frozenset({"&&", "||", "|", "|&", ";", "\n"})
ARGUMENT_TYPES = frozenset({"word", "string", "raw_string", "concatenation", "number",
                            "ansi_c_string"})
GLOB_CHARS = frozenset("*?[")
# bash splits words at space, tab and new line only; tree-sitter also at \r, \v, \f.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
               "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
DQUOTE_ESCAPES = frozenset('$`"\\\n')


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word after quote removal. ``value`` is None when bash computes it at run
    time; ``pattern`` is an fnmatch pattern when it has unquoted glob characters;
    ``tilde`` when it starts with an unquoted ``~``."""

    value: str | None
    pattern: str | None = None
    tilde: bool = False

    @property
    def expands(self) -> bool:
        return self.pattern is not None or self.tilde


UNKNOWN = Word(None)


@dataclass(frozen=True, slots=True)
class Redirect:
    op: str
    target: Word | None  # None: closes a descriptor (``2>&-``)


@dataclass(frozen=True, slots=True)
class RawCommand:
    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True, slots=True)
class Line:
    plain: tuple[RawCommand, ...]  # the top-level commands, in order (when ``problems`` is empty)
    everywhere: tuple[RawCommand, ...]  # every command node in the tree, nested ones too
    problems: tuple[str, ...] = field(default=())


@cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def read_line(text: str) -> Line:
    problems: list[str] = []
    if CONTROL.search(text):
        problems.append("control characters")
    if "\\\n" in text:
        problems.append("line continuation")
    root = _parser().parse(text.encode("utf-8", "surrogatepass")).root_node
    if root.has_error or _has_missing(root):
        problems.append("syntax error")
    plain: list[RawCommand] = []
    _top_level(root, plain, problems, text)
    everywhere = [_raw_command(n, []) for n in _command_nodes(root)]
    return Line(tuple(plain), tuple(everywhere), tuple(dict.fromkeys(problems)))


def _has_missing(node: Any) -> bool:
    return bool(node.is_missing) or any(_has_missing(c) for c in node.children)


def _command_nodes(node: Any) -> list[Any]:
    found = [node] if node.type == "command" else []
    for child in node.children:
        found += _command_nodes(child)
    return found


def _top_level(node: Any, out: list[RawCommand], problems: list[str], text: str) -> None:
    for child in node.children:
        kind = child.type
        if kind == "comment" or (kind in JOINERS and not child.is_named):
            continue
        if kind == "&" and not child.is_named:
            if child.end_byte < len(text.rstrip().encode()) or node.type != "program":
                problems.append("background job")
        elif kind in CONTAINERS:
            _top_level(child, out, problems, text)
        elif kind == "command":
            out.append(_raw_command(child, problems))
        elif kind == "redirected_statement":
            _redirected(child, out, problems)
        elif kind != "!":
            problems.append(kind)


def _redirected(node: Any, out: list[RawCommand], problems: list[str]) -> None:
    body = node.child_by_field_name("body")
    extra = [_redirect(c, problems) for c in node.named_children
             if body is None or c.id != body.id]
    if body is not None and body.type in ("list", "pipeline"):
        # The grammar reads ``a && b 2>&1`` as a redirected list; bash gives the
        # redirection to the last simple command, ``b``.
        count = len(out)
        _top_level(body, out, problems, "")
        if len(out) == count:
            return
    elif body is not None and body.type == "command":
        out.append(_raw_command(body, problems))
    else:
        problems.append(f"redirected {body.type if body is not None else 'nothing'}")
        return
    last = out[-1]
    out[-1] = RawCommand(last.words, last.assignments,
                         last.redirects + tuple(r for r in extra if r is not None))


def _raw_command(node: Any, problems: list[str]) -> RawCommand:
    words: list[Word] = []
    assignments: list[tuple[str, Word]] = []
    redirects: list[Redirect] = []
    for child in node.named_children:
        kind = child.type
        if kind == "variable_assignment":
            assignments.append(_assignment(child, problems))
        elif kind.endswith("redirect"):
            redirect = _redirect(child, problems)
            if redirect is not None:
                redirects.append(redirect)
        elif kind == "command_name":
            words.append(_word_of(child.named_children, problems))
        elif kind == "comment":
            continue
        else:
            words.append(_word(child, problems))
    return RawCommand(tuple(words), tuple(assignments), tuple(redirects))


def _word_of(children: list[Any], problems: list[str]) -> Word:
    if len(children) != 1:
        problems.append("command name")
        return UNKNOWN
    return _word(children[0], problems)


def _assignment(node: Any, problems: list[str]) -> tuple[str, Word]:
    named = node.named_children
    if not named or named[0].type != "variable_name":
        problems.append("assignment")
        return "", UNKNOWN
    ops = [c.type for c in node.children if not c.is_named]
    if ops not in (["="], ["+="]):
        problems.append("assignment")
    value = _word(named[1], problems) if len(named) == 2 else Word("")
    if len(named) > 2:
        problems.append("assignment")
    return named[0].text.decode(), value


def _redirect(node: Any, problems: list[str]) -> Redirect | None:
    if node.type != "file_redirect":
        problems.append(node.type)  # here-documents and here-strings feed a command text
        return None
    ops = [c.type for c in node.children if not c.is_named]
    targets = [c for c in node.named_children if c.type != "file_descriptor"]
    if len(ops) != 1 or len(targets) > 1 or (not targets and ops[0] not in (">&-", "<&-")):
        problems.append("redirection")
        return Redirect(ops[0] if ops else "?", UNKNOWN)
    return Redirect(ops[0], _word(targets[0], problems) if targets else None)


# ---- words ---------------------------------------------------------------------------------

Chars = list[tuple[str, bool]]  # (character, quoted)


def _word(node: Any, problems: list[str]) -> Word:
    chars = _chars(node)
    if chars is None:
        problems.append(f"{node.type} in a word")
        return UNKNOWN
    if _brace_expansion(chars):
        problems.append("brace expansion")
        return UNKNOWN
    value = "".join(c for c, _ in chars)
    pattern = None
    if any(c in GLOB_CHARS and not q for c, q in chars):
        pattern = "".join(f"[{c}]" if q and c in GLOB_CHARS else c for c, q in chars)
    tilde = bool(chars) and chars[0] == ("~", False)
    return Word(value, pattern, tilde)


def _chars(node: Any) -> Chars | None:
    kind = node.type
    text = node.text.decode("utf-8", "surrogateescape")
    if kind in ("word", "number"):
        return _unquoted(text)
    if kind == "raw_string":
        return [(c, True) for c in text[1:-1]] if len(text) >= 2 else None
    if kind == "string":
        return _double_quoted(node)
    if kind == "ansi_c_string":
        decoded = decode_ansi_c(text[2:-1]) if text.startswith("$'") else None
        return None if decoded is None else [(c, True) for c in decoded]
    if kind == "concatenation":
        out: Chars = []
        for child in node.children:
            part = _chars(child)
            if part is None:
                return None
            out += part
        return out
    return None


def _unquoted(text: str) -> Chars | None:
    out: Chars = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            if i + 1 >= len(text):
                return None
            out.append((text[i + 1], True))
            i += 2
            continue
        if char in "$`'\"":
            return None  # an expansion or quote the grammar did not split off: doubt
        out.append((char, False))
        i += 1
    return out


def _double_quoted(node: Any) -> Chars | None:
    out: Chars = []
    for child in node.children:
        if child.type == '"' and not child.is_named:
            continue
        if child.type != "string_content":
            return None
        text = child.text.decode("utf-8", "surrogateescape")
        i = 0
        while i < len(text):
            if text[i] in "$`":
                return None
            if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in DQUOTE_ESCAPES:
                if text[i + 1] != "\n":
                    out.append((text[i + 1], True))
                i += 2
                continue
            out.append((text[i], True))
            i += 1
    return out


def _brace_expansion(chars: Chars) -> bool:
    """An unquoted ``{…,…}`` or ``{a..b}``: bash makes several words of it."""
    opened = -1
    for i, (char, quoted) in enumerate(chars):
        if quoted:
            continue
        if char == "{":
            opened = i
        elif char == "}" and opened >= 0:
            inner = chars[opened + 1 : i]
            text = "".join(c if not q else "\0" for c, q in inner)
            if "," in text or ".." in text:
                return True
    return False


def decode_ansi_c(body: str) -> str | None:
    """The value of ``$'body'``, or None for escapes we do not decode exactly (``\\c``,
    ``\\u``, ``\\U``, a NUL, which ends the word in bash)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in ANSI_SIMPLE:
            out.append(ANSI_SIMPLE[nxt])
            i += 2
        elif nxt == "x" and (m := re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2 :])):
            out.append(chr(int(m.group(), 16)))
            i += 2 + len(m.group())
        elif nxt and nxt in "01234567" and (m := re.match(r"[0-7]{1,3}", body[i + 1 :])):
            out.append(chr(int(m.group(), 8) & 0xFF))
            i += 1 + len(m.group())
        else:
            return None
        if out[-1] == "\0" or ord(out[-1]) > 0x7F:
            return None  # NUL ends the word in bash; a byte above 0x7F is not a character
    return "".join(out)
