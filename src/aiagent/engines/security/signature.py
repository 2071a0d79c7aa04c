"""A signature of the scanners and policy that shaped cached results."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from aiagent import __version__
from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.scanners.base import FileScanner


def scanners_signature(scanners: Sequence[FileScanner], config: SecurityConfig) -> str:
    payload: dict[str, Any] = {
        "aiagent": __version__,
        "scanners": [[s.name, s.version] for s in scanners],
        "rules": list(config.rules),
        "allow": [list(config.allow_secrets), list(config.allow_paths)],
    }
    if config.skill_rules:
        payload["skill_rules"] = [[r.skill, r.raw] for r in config.skill_rules]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
