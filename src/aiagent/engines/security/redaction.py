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


def redact_secrets(text: str) -> str:
    """``text`` with every secret the secret rules find in it masked."""
    if not text:
        return text
    spans = _scanner().secret_spans(text.encode("utf-8", "surrogateescape"))
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
