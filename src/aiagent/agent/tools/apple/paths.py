"""Paths as the Apple tools show them."""

from __future__ import annotations

from pathlib import Path


def shown_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` ("." for ``root`` itself), or as given when outside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
