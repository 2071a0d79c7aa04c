"""The Apple tools' argument schemas (spec Appendix G), as JSON files."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def _load(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text("utf-8")


def load_schema(name: str) -> dict[str, Any]:
    """A fresh copy of schema ``name`` (callers may not share and change one)."""
    data: dict[str, Any] = json.loads(_load(name))
    return data
