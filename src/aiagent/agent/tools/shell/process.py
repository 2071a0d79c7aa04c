"""Moved to :mod:`aiagent.infra.process.runner` (the one process runner); kept for imports."""

from aiagent.infra.process.runner import (
    DetachedProcess,
    Limits,
    Outcome,
    OutputSink,
    Running,
    new_tag,
    spawn,
    spawn_detached,
)
from aiagent.infra.process.tree import find_tagged, kill_tree

__all__ = [
    "DetachedProcess", "Limits", "Outcome", "OutputSink", "Running", "find_tagged", "kill_tree",
    "new_tag", "spawn", "spawn_detached",
]
