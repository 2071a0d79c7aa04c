"""The scanner contracts.

A :class:`FileScanner` looks at one file at a time (its results are cached by content
hash); a :class:`ProjectScanner` looks at the whole inventory (lockfiles, licenses).
Skill-provided scanners implement the same protocols and are registered by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from aiagent.engines.security.config import SecurityConfig
    from aiagent.engines.security.deps.osv_settings import OsvOnlineSettings
    from aiagent.engines.security.discovery import Inventory, SourceFile
    from aiagent.engines.security.finding import Finding


@dataclass(slots=True)
class ScanContext:
    """What a scanner may use: the root, the project policy and engine options."""

    root: Path
    config: SecurityConfig
    osv_db: Path | None = None
    warnings: list[str] = field(default_factory=list)
    osv_online: OsvOnlineSettings | None = None  # also ask the OSV API (opt-in)


@runtime_checkable
class FileScanner(Protocol):
    name: str
    version: str

    def applies_to(self, file: SourceFile) -> bool: ...

    def scan_file(self, file: SourceFile, data: bytes) -> list[Finding]: ...


def take_notes(scanner: object) -> list[str]:
    """What a file scanner could not do on the file it just scanned (a rule skipped at its
    regex time limit); scanners that keep no notes have none."""
    notes: list[str] | None = getattr(scanner, "notes", None)
    if not notes:
        return []
    out = list(notes)
    notes.clear()
    return out


@runtime_checkable
class ProjectScanner(Protocol):
    name: str

    def scan_project(self, inventory: Inventory, ctx: ScanContext) -> list[Finding]: ...
