"""Moved to :mod:`aiagent.process.capture` (the one process runner); kept for imports."""

from aiagent.process.capture import Capture

__all__ = ["Capture"]
