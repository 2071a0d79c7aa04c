"""A strict reader of old-style (OpenStep) ASCII property lists, as ``project.pbxproj`` is.

Grammar: a value is a dictionary ``{ key = value; ... }``, an array ``( value, ... )`` (a
trailing comma is allowed), a quoted string ``"..."`` (C escapes, ``\\Uxxxx``), an unquoted
string of ``[A-Za-z0-9_$+/:.-]`` or binary data ``<0fa1 ...>``; ``//`` and ``/* */`` are
comments. Nothing is evaluated. The parser is iterative (no recursion), so deep nesting ends
in :class:`PlistError` at :data:`MAX_DEPTH`, not a crash; input larger than :data:`MAX_BYTES`
is refused before parsing; time is linear in the size.

The PyPI readers were tried first: ``openstep_parser`` raises a bare ``IndexError`` on a
truncated file and fails on three comments in a row; ``openstep-plist`` (Cython) crashes
the process with a segmentation fault on deeply nested input.
"""

from __future__ import annotations

import re
from typing import Any

MAX_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 100

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
            '"': '"', "'": "'", "\\": "\\"}
_ESCAPE = re.compile(r'\\(?:U([0-9A-Fa-f]{4})|([0-7]{1,3})|(.))', re.S)


class PlistError(ValueError):
    """The text is not an old-style property list; ``line`` is 1-based."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def loads(text: str) -> Any:
    """The value ``text`` holds (dicts, lists, str, bytes)."""
    if len(text) > MAX_BYTES:
        raise PlistError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MB", 1)
    return _Reader(text).document()


_TOKEN = re.compile(
    r"""(?:\s+|//[^\n]*|/\*.*?\*/)*(?:"""
    r"""([{}()=;,])|"([^"\\]*(?:\\.[^"\\]*)*)"|'([^'\\]*(?:\\.[^'\\]*)*)'"""
    r"""|(/\*)|([A-Za-z0-9_$+/:.\-]+)|<([0-9A-Fa-f\s]*)>|(\Z)|(.))""", re.S)
_END, _STRING, _DATA_TOKEN = "end", "string", "data"


class _Reader:
    """Tokens from one compiled pattern; containers filled with an explicit stack."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.kind = ""
        self.value: Any = None
        self.start = 0

    def fail(self, message: str) -> PlistError:
        return PlistError(message, self.text.count("\n", 0, self.start) + 1)

    def next(self) -> str:
        """Read the next token: its kind ('{', ';', 'string', 'data', 'end', ...)."""
        match = _TOKEN.match(self.text, self.pos)
        assert match is not None
        punct, dq, sq, comment, bare, data, end, other = match.groups()
        self.start, self.pos = match.start(match.lastindex or 0), match.end()
        if punct:
            self.kind = punct
        elif dq is not None or sq is not None:
            self.kind, self.value = _STRING, _ESCAPE.sub(_unescape, dq if dq is not None else sq)
        elif bare:
            self.kind, self.value = _STRING, bare
        elif data is not None:
            self.kind, self.value = _DATA_TOKEN, _hex(data, self)
        elif end is not None:
            self.kind = _END
        elif comment:
            raise self.fail("unterminated /* comment")
        else:
            raise self.fail(_unexpected(other))
        return self.kind

    def document(self) -> Any:
        if self.next() == _END:
            raise self.fail("empty file")
        value = self.value_here()
        if self.next() != _END:
            raise self.fail(f"unexpected {self.text[self.start]!r} after the top-level value")
        return value

    def value_here(self) -> Any:
        """The value starting at the current token."""
        stack: list[list[Any]] = []  # [container, pending key]
        while True:
            kind = self.kind
            if kind in ("{", "("):
                if len(stack) >= MAX_DEPTH:
                    raise self.fail(f"nested deeper than {MAX_DEPTH} levels")
                stack.append([{} if kind == "{" else [], None])
                value, closed = self.open_next(stack)
                if not closed:
                    continue
            elif kind in (_STRING, _DATA_TOKEN):
                value = self.value
            else:
                raise self.fail(_expected("a value", kind, self))
            while stack:
                value, closed = self.store(stack, value)
                if not closed:
                    break
            else:
                return value

    def open_next(self, stack: list[list[Any]]) -> tuple[Any, bool]:
        """After '{', '(' or a separator: (container, True) when it closes here, else
        reads up to the next value's first token and gives (None, False)."""
        container = stack[-1][0]
        kind = self.next()
        if isinstance(container, dict):
            if kind == "}":
                stack.pop()
                return container, True
            if kind != _STRING:
                raise self.fail(_expected("a dictionary key", kind, self))
            stack[-1][1] = key = self.value
            if self.next() != "=":
                raise self.fail(f"expected '=' after key {key!r}")
            self.next()
            return None, False
        if kind == ")":
            stack.pop()
            return container, True
        return None, False

    def store(self, stack: list[list[Any]], value: Any) -> tuple[Any, bool]:
        """Put a finished value into the innermost container and read what follows it."""
        container, key = stack[-1]
        kind = self.next()
        if isinstance(container, dict):
            container[key] = value
            if kind != ";":
                raise self.fail(f"file ends inside the value of {key!r}" if kind == _END
                                else f"expected ';' after the value of {key!r}")
            return self.open_next(stack)
        container.append(value)
        if kind == ",":
            return self.open_next(stack)
        if kind == ")":
            stack.pop()
            return container, True
        raise self.fail("file ends inside an array" if kind == _END
                        else "expected ',' or ')' in an array")


def _hex(digits: str, reader: _Reader) -> bytes:
    digits = re.sub(r"\s", "", digits)
    if len(digits) % 2:
        raise reader.fail("odd number of hex digits in <data>")
    return bytes.fromhex(digits)


def _unexpected(char: str) -> str:
    if char in "\"'":
        return "unterminated quoted string"
    return f"unexpected {char!r}"


def _expected(what: str, kind: str, reader: _Reader) -> str:
    if kind == _END:
        return f"file ends where {what} was expected"
    return f"unexpected {reader.text[reader.start]!r} where {what} was expected"


def _unescape(match: re.Match[str]) -> str:
    hex4, octal, other = match.groups()
    if hex4:
        return chr(int(hex4, 16))
    if octal:
        return chr(int(octal, 8))
    return _ESCAPES.get(other, other)
