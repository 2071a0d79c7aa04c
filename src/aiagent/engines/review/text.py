"""Untrusted text (model answers, repository content) made safe for a report: no control
characters, no hidden HTML comments (our markers), no @mentions that would ping people."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]")
_MENTION = re.compile(r"(?<![\w`])@(?=[A-Za-z0-9])")


def plain(text: str, limit: int = 8000) -> str:
    """``text`` without control characters, cut at ``limit``."""
    out = _CONTROL.sub("", text.replace("\r\n", "\n"))
    return out if len(out) <= limit else out[: limit - 1] + "…"


def markdown_safe(text: str, limit: int = 8000) -> str:
    """For Markdown shown on GitHub/GitLab: no HTML comments, no mentions."""
    out = plain(text, limit).replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    return _MENTION.sub("@\u200b", out)


def fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{plain(text).rstrip()}\n{ticks}"
