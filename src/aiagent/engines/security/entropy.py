"""Shannon entropy of a candidate secret, judged against its character set."""

from __future__ import annotations

import math
from collections import Counter

HEX = frozenset(b"0123456789abcdefABCDEF")
BASE64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")


def shannon(data: bytes) -> float:
    if not data:
        return 0.0
    n = len(data)
    return -sum(c / n * math.log2(c / n) for c in Counter(data).values())


def charset(data: bytes) -> str:
    chars = set(data)
    if chars <= HEX:
        return "hex"
    if chars <= BASE64:
        return "base64"
    return "other"
