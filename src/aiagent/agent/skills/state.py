"""Which skills a user or project turned on or off (``aiagent skill enable/disable``).

Kept apart from the hand-written config files so they are never rewritten: the project's
choice in ``.agent/skills-state.json``, the user's in ``~/.config/aiagent/skills-state.json``.
The project's choice wins over the user's; both win over ``[skills] disabled``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

FILE_NAME = "skills-state.json"


@dataclass(slots=True)
class EnableState:
    enabled: set[str] = field(default_factory=set)
    disabled: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, path: Path) -> EnableState:
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        return cls(set(map(str, data.get("enabled") or [])), set(map(str, data.get("disabled") or [])))

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"enabled": sorted(self.enabled), "disabled": sorted(self.disabled)}
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    def set(self, name: str, on: bool) -> None:
        (self.enabled if on else self.disabled).add(name)
        (self.disabled if on else self.enabled).discard(name)


def state_paths(project_root: Path, config_dir: Path) -> tuple[Path, Path]:
    """(user file, project file)."""
    return config_dir / FILE_NAME, project_root / ".agent" / FILE_NAME


def apply_state(disabled: set[str], user: EnableState, project: EnableState) -> set[str]:
    out = (disabled | user.disabled) - user.enabled
    return (out | project.disabled) - project.enabled


MCP_PREFIX = "mcp:"  # an MCP server, listed and switched like a tool skill (FR-5.13)


def disabled_by_state(disabled: set[str], project_root: Path, config_dir: Path, *,
                      trusted: bool) -> set[str]:
    """``disabled`` after the user's and the project's ``skill enable/disable`` choices; an
    untrusted project may turn skills off, never on."""
    user_file, project_file = state_paths(project_root, config_dir)
    project = EnableState.read(project_file)
    if not trusted:
        project.enabled.clear()
    return apply_state(disabled, EnableState.read(user_file), project)


def mcp_disabled(project_root: Path, config_dir: Path, *, trusted: bool) -> set[str]:
    """Names of MCP servers switched off with ``aiagent skill disable mcp:NAME``."""
    off = disabled_by_state(set(), project_root, config_dir, trusted=trusted)
    return {name.removeprefix(MCP_PREFIX) for name in off if name.startswith(MCP_PREFIX)}
