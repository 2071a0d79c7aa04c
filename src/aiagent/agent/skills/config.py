"""The ``[skills]`` settings table, read into plain values with clear errors."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from aiagent.infra.config.model import as_table

if TYPE_CHECKING:
    from aiagent.infra.config.settings import Settings


class SkillConfigError(Exception):
    exit_code = 2


def duration(value: Any, default: float, key: str) -> float:
    """``30``, ``"30s"``, ``"2m"``, ``"1m30s"`` → seconds."""
    if value is None:
        return default
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip().lower()
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise SkillConfigError(f"{key}: {value!r} is not a duration (examples: 30, 30s, 2m)")
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(n) * scale[u] for n, u in parts)


def name_list(value: Any) -> list[str]:
    if value is None:
        return []
    items: Iterable[Any] = value if isinstance(value, list | tuple) else str(value).split(",")
    return [str(i).strip() for i in items if str(i).strip()]


def disabled_names(skills: Mapping[str, Any], all_names: Iterable[str]) -> set[str]:
    """``[skills] disabled`` plus what the chosen preset turns off.

    A preset is ``[skills.presets.NAME]`` with ``enabled = [...]`` (everything else is
    disabled) or ``disabled = [...]``; ``[skills] preset = "NAME"`` chooses it.
    """
    disabled = set(name_list(skills.get("disabled")))
    preset_name = skills.get("preset")
    if preset_name:
        preset = (skills.get("presets") or {}).get(str(preset_name))
        if not isinstance(preset, Mapping):
            raise SkillConfigError(f"skills.preset: no preset named {preset_name!r} in [skills.presets]")
        if preset.get("enabled") is not None:
            keep = set(name_list(preset.get("enabled")))
            disabled |= {n for n in all_names if n not in keep}
        disabled |= set(name_list(preset.get("disabled")))
    disabled -= set(name_list(skills.get("enabled")))
    return disabled


def skills_table(settings: Settings) -> dict[str, Any]:
    """``[skills]`` as the skill loader reads it: the keys that are set."""

    return {k: v for k, v in as_table(settings.skills).items() if v is not None}
