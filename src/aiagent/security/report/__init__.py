"""Reporters: render an AuditResult as text. One module per format, chosen by name.

Every renderer is ``render(result, options=None) -> str``; ``ReportOptions`` (in
``report.common``) carries what the command line asked for (``--include-info``) and what
the terminal can show (colour, width)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from aiagent.security.engine import AuditResult
    from aiagent.security.report.common import ReportOptions


class Renderer(Protocol):
    def __call__(self, result: AuditResult, options: ReportOptions | None = None) -> str: ...


FORMATS: dict[str, str] = {
    "table": "aiagent.security.report.table:render",
    "json": "aiagent.security.report.json_report:render",
    "markdown": "aiagent.security.report.markdown:render",
    "sarif": "aiagent.security.report.sarif:render",
    "github": "aiagent.security.report.github:render",
    "cyclonedx": "aiagent.security.report.cyclonedx:render",
}


def get_renderer(name: str) -> Renderer:
    module, _, attr = FORMATS[name].partition(":")
    renderer: Renderer = getattr(importlib.import_module(module), attr)
    return renderer
