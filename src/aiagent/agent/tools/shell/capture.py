"""Moved to :mod:`aiagent.infra.process.capture` (the one process runner); kept for imports."""

from aiagent.infra.process.capture import Capture

__all__ = ["Capture"]
