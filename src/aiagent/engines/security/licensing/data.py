"""The license data pack (rules/licenses.yaml), loaded once."""

from __future__ import annotations

from functools import cache
from typing import Any

from aiagent.engines.security.rulepack import read_pack_text
from aiagent.engines.security.yamlio import load_yaml

PACK = "licenses.yaml"


@cache
def license_data() -> dict[str, Any]:
    data: dict[str, Any] = load_yaml(read_pack_text(PACK))
    return data

