"""The command-line layer of the settings: front-end options shaped like ``config.toml``.

The CLI and the terminal UI both turn their options into this layer (the TUI again when a
command changes an option, e.g. another provider).
"""

from __future__ import annotations

import re
from typing import Any

from aiagent.infra.config.settings import ConfigError


def flags_layer(options: dict[str, Any]) -> dict[str, Any]:
    """The command-line layer of the settings, shaped like config.toml."""
    layer: dict[str, Any] = {"provider": {}, "agent": {}}
    if options.get("provider"):
        layer["provider"]["default"] = options["provider"]
    if options.get("model"):
        layer["provider"]["model"] = options["model"]
    if options.get("max_turns"):
        layer["agent"]["max_turns"] = options["max_turns"]
    if options.get("timeout") is not None:
        try:
            layer["agent"]["timeout"] = parse_duration(options["timeout"])
        except ValueError as exc:
            raise ConfigError(f"--timeout: {exc}") from None
    for key, flag, kind in (("max_cost", "--max-cost", float), ("max_tokens", "--max-tokens", int)):
        if options.get(key) is not None:
            layer["agent"][key] = parse_limit(options[key], flag, kind)
    if options.get("tools_csv") is not None:
        layer["agent"]["tools"] = [t.strip() for t in options["tools_csv"].split(",") if t.strip()]
    if options.get("approval_mode"):
        layer["agent"]["approval_mode"] = options["approval_mode"]
    skills = {
        key: [n.strip() for n in str(options[opt]).split(",") if n.strip()]
        for key, opt in (("explicit", "skills_csv"), ("approve", "approve_skills"))
        if options.get(opt)
    }
    if skills:
        layer["skills"] = skills
    if options.get("trust"):
        layer["security"] = {"trust_workspace": True}
    return {k: v for k, v in layer.items() if v}


def parse_limit(value: object, flag: str, kind: type[float] | type[int]) -> float | int:
    """A budget given on the command line: a finite number >= 0 (an int for ``int``)."""
    import math

    try:
        number = kind(str(value).strip())
    except ValueError:
        number = -1
    if not math.isfinite(number) or number < 0:
        what = "a whole number" if kind is int else "a number of US dollars"
        raise ConfigError(f"{flag} {value!r}: expected {what}, 0 or more (0 = no limit)")
    return number


def parse_duration(value: str | None) -> float | None:
    """``120``, ``120s``, ``2m``, ``1h``, ``1m30s`` → seconds."""
    if value is None:
        return None
    text = value.strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"{value!r} is not a duration (examples: 90, 90s, 2m, 1h)")
    scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * scale[u] for n, u in parts)
