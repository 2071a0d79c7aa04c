"""Reporters: render an AuditResult as text. One module per format, chosen by name."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiagent.security.engine import AuditResult

Renderer = Callable[["AuditResult"], str]

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
