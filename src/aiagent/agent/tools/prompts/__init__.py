"""Prompts shipped with the tools (package data)."""

from __future__ import annotations

from importlib.resources import files


def load(name: str) -> str:
    """The text of ``prompts/<name>.md``."""
    return files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8")


def shell_bg_prompt() -> str:
    """Teaches the model foreground vs background commands (seed 000 §1.3)."""
    return load("shell_bg")
