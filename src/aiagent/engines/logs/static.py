"""The static part end to end: a log source in, the static report out (no model)."""

from __future__ import annotations

from typing import Any

from aiagent.engines.logs.analyzer import Analyzer, Progress
from aiagent.engines.logs.parse import gc_paused
from aiagent.engines.logs.report import build
from aiagent.engines.logs.source import LogInputError, LogSource, read_blocks


def analyse(source: LogSource, on_progress: Progress | None = None) -> dict[str, Any]:
    """Read ``source`` to its end (bounded memory) and report. Raises LogInputError."""
    analysis = Analyzer(on_progress)
    with gc_paused():
        for block in read_blocks(source):
            analysis.feed(block)
        analysis.finish()
    if analysis.lines == analysis.blank_lines:
        raise LogInputError(f"{source.name}: the log is empty (no lines to analyse)")
    return build(analysis, source)
