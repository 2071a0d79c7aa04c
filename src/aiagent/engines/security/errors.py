"""Errors the security engine raises for bad input (one clear line each)."""

from __future__ import annotations


class SecurityConfigError(ValueError):
    """A bad `.security.yaml`, rule pack or option; the message names the file and field."""

    def __init__(self, source: str, field: str, problem: str) -> None:
        self.source = source
        self.field = field
        self.problem = problem
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {problem}")
