"""Reporters: render an AuditResult as text. One module per format, chosen by name.

Every renderer is ``render(result, options=None) -> str``; ``ReportOptions`` (in
``report.common``) carries what the command line asked for (``--include-info``) and what
the terminal can show (colour, width)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from aiagent.engines.security.engine import AuditResult
    from aiagent.engines.security.report.common import ReportOptions


class Renderer(Protocol):
    def __call__(self, result: AuditResult, options: ReportOptions | None = None) -> str: ...


FORMATS: dict[str, str] = {
    "table": "aiagent.engines.security.report.table:render",
    "json": "aiagent.engines.security.report.json_report:render",
    "markdown": "aiagent.engines.security.report.markdown:render",
    "sarif": "aiagent.engines.security.report.sarif:render",
    "github": "aiagent.engines.security.report.github:render",
    "cyclonedx": "aiagent.engines.security.report.cyclonedx:render",
}


def get_renderer(name: str) -> Renderer:
    module, _, attr = FORMATS[name].partition(":")
    renderer: Renderer = getattr(importlib.import_module(module), attr)
    return renderer
