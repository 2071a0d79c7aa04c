"""Secrets never leave in evidence.

A finding's evidence is a line of the scanned file. Before it is kept (in a finding, the scan
cache, or any report), every secret the secret rules recognise on that line is masked — not
only the one a secrets finding is about — and only then is the line cut to its display length,
so a secret cannot survive half-cut at the end. A mask keeps a short prefix and a hash of the
value (``ghp_…#1a2b3c4d``): two findings about the same secret stay recognisable as such, and
fingerprints, which include the evidence, stay stable from run to run.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiagent.engines.security.scanners.secrets import SecretsScanner

EVIDENCE_CHARS = 200
#: How much of a raw line a scanner hands over for evidence: enough that every secret on
#: the kept part is whole when the rules look at it (the cut to EVIDENCE_CHARS comes later).
RAW_EVIDENCE_CHARS = 4096
PREFIX_CHARS = 4


def mask(secret: str) -> str:
    """``secret`` as it may be shown: a short prefix (for long values) and a hash."""
    digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    keep = PREFIX_CHARS if len(secret) > 3 * PREFIX_CHARS else 0
    return f"{secret[:keep]}…#{digest}"


@cache
def _scanner() -> SecretsScanner:
    from aiagent.engines.security.scanners.secrets import SecretsScanner

    return SecretsScanner()


#: Token shapes masked even when no rule reports them (a prefix that only credentials use,
#: then a long run of token characters): evidence never shows a credential whole because
#: its exact format changed or a rule's entropy floor was not met.
SHAPES = re.compile(
    rb"\b(?:(?:sk|rk|pk)[-_](?:live|test|proj|svcacct|admin|ant)[-_][A-Za-z0-9_-]{16,}"
    rb"|sk-[A-Za-z0-9_-]{32,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    rb"|glpat-[A-Za-z0-9_.-]{16,}|xox[a-z]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}"
    rb"|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{30,}|AKIA[0-9A-Z]{16}"
    rb"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})")


def _spans(data: bytes) -> list[tuple[int, int]]:
    spans = sorted([*_scanner().secret_spans(data), *(m.span() for m in SHAPES.finditer(data))])
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def redact_secrets(text: str) -> str:
    """``text`` with every secret the secret rules find in it, and every token of a
    credential's shape (``SHAPES``), masked."""
    if not text:
        return text
    spans = _spans(text.encode("utf-8", "surrogateescape"))
    if not spans:
        return text
    data = text.encode("utf-8", "surrogateescape")
    out, last = [], 0
    for start, end in spans:
        out.append(data[last:start].decode("utf-8", "replace"))
        out.append(mask(data[start:end].decode("utf-8", "replace")))
        last = end
    out.append(data[last:].decode("utf-8", "replace"))
    return "".join(out)


def evidence(raw: str | bytes, limit: int = EVIDENCE_CHARS) -> str:
    """The evidence to keep for ``raw`` (a line or snippet): secrets masked, then cut."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return redact_secrets(text.strip()[:RAW_EVIDENCE_CHARS])[:limit]
