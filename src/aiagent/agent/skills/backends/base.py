"""What every backend provides: load (returning what the skill registered), call, close."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class BackendError(Exception):
    """A skill's code failed to load or to run. One line, naming the skill."""


@dataclass(frozen=True, slots=True)
class Registered:
    kind: str  # tool | hook | workflow | scanner
    name: str
    opts: dict[str, Any] = field(default_factory=dict)


class Backend(Protocol):
    async def load(self) -> list[Registered]: ...

    async def call(self, kind: str, name: str, arg: Any) -> Any: ...

    async def close(self) -> None: ...


def registrations(items: Any, who: str) -> list[Registered]:
    """Check and convert the registrations a backend reported."""
    out: list[Registered] = []
    for item in items or []:
        if not isinstance(item, dict) or item.get("kind") not in ("tool", "hook", "workflow", "scanner") or not item.get("name"):
            raise BackendError(f"{who}: bad registration {item!r}")
        out.append(Registered(str(item["kind"]), str(item["name"]), dict(item.get("opts") or {})))
    return out
