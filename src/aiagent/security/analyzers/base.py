"""The seam for phase-2 analyzers (LLM and skill-provided).

An analyzer receives the static result (findings and per-file risk scores, highest first)
and a call budget, and returns more findings. The engine runs analyzers only when asked
(`--no-llm` off and a provider configured); registration is by name, like scanners.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from aiagent.security.finding import Finding


@dataclass(frozen=True, slots=True)
class AnalysisTarget:
    root: Path
    file_scores: dict[str, int]
    static_findings: Sequence[Finding]
    max_llm_calls: int


@runtime_checkable
class Analyzer(Protocol):
    name: str

    async def analyze(self, target: AnalysisTarget) -> list[Finding]: ...


ANALYZERS: dict[str, str | Callable[..., Any]] = {}


def register_analyzer(name: str, factory: str | Callable[..., Any]) -> None:
    ANALYZERS[name] = factory


def load_analyzer(name: str) -> Callable[..., Any]:
    target = ANALYZERS[name]
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    factory: Callable[..., Any] = getattr(importlib.import_module(module), attr)
    return factory
