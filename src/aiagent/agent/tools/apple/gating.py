"""Platform gating (FR-6.14, ADR-010): which Apple tools are offered where, and the one
line a gated or unusable tool answers with.

A tool's platforms and needed executables come from ``tools.toml``. On a platform it is
not for, the tool is not offered to the model (:func:`offered`), and calling it anyway
(``aiagent tools run``) gives one line naming the tool and what it needs. Where it is
offered but an executable is missing, the call says how to install it.

The platform is ``sys.platform``; ``AIAGENT_APPLE_PLATFORM`` overrides it, so the macOS
path can be exercised on Linux with fake ``xcodebuild``/``xcrun`` executables on PATH.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable
from typing import Any

from aiagent.agent.tools.apple import catalog
from aiagent.agent.tools.tooldef import BuiltinTool
from aiagent.contracts.tools import ToolContext, ToolResult

PLATFORM_VARIABLE = "AIAGENT_APPLE_PLATFORM"
LABELS = {"darwin": "macOS", "linux": "Linux", "win32": "Windows"}


def current_platform() -> str:
    """``sys.platform``, or the override in ``AIAGENT_APPLE_PLATFORM``."""
    return os.environ.get(PLATFORM_VARIABLE, "").strip() or sys.platform


def _spec(name: str) -> dict[str, Any] | None:
    spec = catalog()["tools"].get(name)
    return spec if isinstance(spec, dict) else None


def platform_problem(name: str, platform: str | None = None) -> str | None:
    """Why tool ``name`` is not for this platform (one line), or None."""
    spec = _spec(name)
    here = platform or current_platform()
    allowed = list(spec.get("platforms", [])) if spec else []
    if not allowed or here in allowed:
        return None
    label = LABELS.get(here, here)
    if allowed == ["darwin"]:
        what = "macOS and Xcode" if set(spec.get("needs", [])) & {"xcodebuild", "xcrun"} else "macOS"  # type: ignore[union-attr]
    else:
        what = " or ".join(LABELS.get(p, p) for p in allowed)
    return f"{name} needs {what}; it is not available on {label}"


def missing_executable(name: str, path: str | None = None) -> str | None:
    """The first executable tool ``name`` needs that is not on PATH, with how to get it."""
    spec = _spec(name) or {}
    for exe in spec.get("needs", []):
        if shutil.which(exe, path=path) is None:
            how = catalog().get("install", {}).get(exe, f"install {exe}")
            return f"{name} needs `{exe}`, which is not on PATH: {how}"
    return None


def problem(name: str, platform: str | None = None) -> str | None:
    """Why ``name`` cannot run here: the platform first, then a missing executable."""
    return platform_problem(name, platform) or missing_executable(name)


def offered(names: Iterable[str], platform: str | None = None) -> list[str]:
    """``names`` without the Apple tools that are not for this platform (others pass)."""
    return [n for n in names if platform_problem(n, platform) is None]


class GatedTool(BuiltinTool):
    """An Apple tool: answers with the gating line instead of running where it cannot."""

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        why = problem(self.name)
        if why:
            return ToolResult(why, is_error=True)
        return await super().run(args, ctx)
