"""Normalise declared license strings to SPDX expressions.

Tries, in order: a Python trove classifier, the string as an SPDX expression, then each
operand through the alias table in rules/licenses.yaml ("Apache 2.0" -> Apache-2.0,
"MIT/Apache-2.0" -> MIT OR Apache-2.0). What is left unrecognised is reported as such.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from aiagent.engines.security.licensing.data import license_data

NO_LICENSE = frozenset({"", "unknown", "none", "noassertion", "unlicensed", "proprietary"})
_OPERATORS = re.compile(r"(\s+(?:OR|AND|WITH)\s+|\s*/\s*|\s*,\s*)", re.IGNORECASE)
_NOISE = re.compile(r"\b(the|license|licence|version|software)\b|[(),;:]")


@dataclass(frozen=True, slots=True)
class Normalized:
    raw: str
    expression: str  # SPDX expression, "" when not recognised

    @property
    def known(self) -> bool:
        return bool(self.expression)


@cache
def _licensing() -> Any:
    from license_expression import get_spdx_licensing

    return get_spdx_licensing()


def parse(expression: str) -> Any:
    """The parsed SPDX expression tree, or None when it is not valid SPDX."""
    from license_expression import ExpressionError

    licensing = _licensing()
    try:
        parsed = licensing.parse(expression, validate=False)
    except (ExpressionError, TypeError, ValueError):
        return None
    if parsed is None:
        return None
    unknown = [k for k in licensing.unknown_license_keys(parsed) if not k.startswith("LicenseRef-")]
    return None if unknown else parsed


@cache
def normalize(raw: str) -> Normalized:
    text = " ".join(raw.split())
    if text.lower() in NO_LICENSE or text.upper().startswith("SEE LICENSE IN"):
        return Normalized(raw, "")
    classifier = license_data()["classifiers"].get(text)
    if classifier:
        return Normalized(raw, str(classifier))
    parsed = parse(text)
    if parsed is not None:
        return Normalized(raw, parsed.render())
    return Normalized(raw, _alias(text) or _from_parts(text))


def _from_parts(text: str) -> str:
    pieces = _OPERATORS.split(text)
    out: list[str] = []
    for i, piece in enumerate(pieces):
        if i % 2:
            op = piece.strip().upper()
            out.append(" OR " if op in {"/", ","} or not op else f" {op} ")
            continue
        spdx = _alias(piece)
        if not spdx:
            return ""
        out.append(f"({spdx})" if " " in spdx else spdx)
    parsed = parse("".join(out))
    return parsed.render() if parsed is not None else ""


def _alias(operand: str) -> str:
    direct = parse(operand.strip())
    if direct is not None:
        return str(direct.render())
    words = _NOISE.sub(" ", operand.lower().replace("-", " ").replace("_", " ")).split()
    key = " ".join(dict.fromkeys(words))  # "The MIT License (MIT)" -> "mit"
    aliases: dict[str, str] = license_data()["aliases"]
    return str(aliases.get(key) or aliases.get(key.replace(" ", "")) or "")


def license_ids(expression: str) -> list[str]:
    """The license ids (exceptions left out) in a SPDX expression."""
    parsed = parse(expression)
    if parsed is None:
        return []
    return [str(k) for k in _licensing().license_keys(parsed) if not _is_exception(str(k))]


def _is_exception(key: str) -> bool:
    return key.endswith("-exception") or "-exception-" in key
