"""Recognise the license in a LICENSE / COPYING file from phrases in rules/licenses.yaml."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from aiagent.engines.security.licensing.data import license_data

LICENSE_FILE = re.compile(r"^(licen[cs]e|copying|unlicense)([.-].*)?$", re.IGNORECASE)
TEXT_SUFFIXES = frozenset({"", ".txt", ".md", ".rst", ".markdown", ".lesser", ".mit", ".apache",
                           ".bsd", ".gpl", ".apache2", ".apache-2.0"})
MAX_CHARS = 64_000


def is_license_file(rel: str) -> bool:
    path = PurePosixPath(rel)
    return bool(LICENSE_FILE.match(path.name)) and path.suffix.lower() in TEXT_SUFFIXES


def identify(text: str) -> str:
    """The SPDX id of a license text, or '' when no known license is recognised."""
    body = " ".join(text[:MAX_CHARS].lower().replace("\u2019", "'").replace("\u201c", '"')
                    .replace("\u201d", '"').split())
    for entry in license_data()["texts"]:
        if all(p in body for p in entry["all"]) and not any(p in body for p in entry.get("none", [])):
            return str(entry["id"])
    return ""
