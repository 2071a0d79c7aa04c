"""Path resolution and scope checks for tools.

Every path a tool touches goes through :func:`resolve_path`: relative paths are taken from
the workspace root, symlinks are resolved, and the final location must lie inside the
workspace unless ``ctx.allow_outside_workspace`` (or ``[tools] allow_outside_workspace``)
says otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from aiagent.tools.base import ToolError

if TYPE_CHECKING:
    from aiagent.tools.base import ToolContext


class OutsideWorkspaceError(ToolError):
    """The path escapes the workspace (directly or through a symlink)."""


def workspace_root(ctx: ToolContext) -> Path:
    """The workspace root, absolute and with symlinks resolved."""
    return Path(os.path.realpath(ctx.workspace))


def outside_allowed(ctx: ToolContext) -> bool:
    return bool(ctx.allow_outside_workspace or ctx.settings.get("allow_outside_workspace"))


def resolve_path(
    ctx: ToolContext, raw: str | os.PathLike[str], *, field: str = "path", reading: bool = False
) -> Path:
    """Resolve ``raw`` against the workspace and refuse it if it leaves the workspace.

    The returned path is absolute with every symlink resolved (the real file that would
    be read or written). ``field`` names the argument in error messages. With
    ``reading``, the folders listed in ``ctx.state["tools.readable_roots"]`` (such as the
    shell's output logs) are allowed too.
    """
    text = os.fspath(raw)
    if not text.strip():
        raise ToolError(f"{field} must not be empty")
    if "\x00" in text:
        raise ToolError(f"{field} contains a NUL byte")
    root = workspace_root(ctx)
    candidate = Path(os.path.expanduser(text))
    if not candidate.is_absolute():
        candidate = root / candidate
    real = Path(os.path.realpath(candidate))
    if not outside_allowed(ctx) and not is_inside(real, root) and not _readable(ctx, real, reading):
        raise OutsideWorkspaceError(_refusal(text, real, candidate, root))
    return real


def _readable(ctx: ToolContext, real: Path, reading: bool) -> bool:
    if not reading:
        return False
    roots = ctx.state.get("tools.readable_roots", [])
    return any(is_inside(real, Path(os.path.realpath(r))) for r in roots)


def is_inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _refusal(text: str, real: Path, candidate: Path, root: Path) -> str:
    via = ""
    if Path(os.path.normpath(candidate)) != real:
        via = f" (it resolves to {real} through a symlink)"
    return (
        f"access denied: {text} is outside the workspace {root}{via}; "
        "set [tools] allow_outside_workspace = true to allow it"
    )


def display_path(ctx: ToolContext, path: Path) -> str:
    """``path`` relative to the workspace when inside it, else absolute."""
    root = workspace_root(ctx)
    if is_inside(path, root) and path != root:
        return str(path.relative_to(root))
    return str(path)
