"""Helpers shared by the security engine tests."""

from __future__ import annotations

from pathlib import Path

from aiagent.engines.security.discovery import SourceFile
from aiagent.infra.syntax.languages import classify

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden"


def source(rel: str, language: str | None = None) -> SourceFile:
    return SourceFile(path=Path(rel), rel=rel, language=language or classify(rel), size=0)
