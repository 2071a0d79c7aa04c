"""Scan files with every file scanner; runs in the main process or in worker processes."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.discovery import SourceFile, looks_binary, looks_minified
from aiagent.engines.security.scanners.base import FileScanner, take_notes
from aiagent.engines.security.scanners.registry import load_factory


@dataclass(slots=True)
class FileOutcome:
    rel: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    skipped: str = ""
    lines: int = 0
    error: str = ""
    notes: list[str] = field(default_factory=list)  # rules skipped (load-dependent: not cached)


def build_file_scanners(config: SecurityConfig, names: list[str]) -> list[FileScanner]:
    out = []
    for name in names:
        scanner = load_factory(name)(config)
        if isinstance(scanner, FileScanner):
            out.append(scanner)
    return out


def scan_one(scanners: list[FileScanner], file: SourceFile, data: bytes) -> FileOutcome:
    if looks_binary(data):
        return FileOutcome(file.rel, skipped="binary")
    if looks_minified(data, file.language):
        return FileOutcome(file.rel, skipped="minified")
    outcome = FileOutcome(file.rel, lines=data.count(b"\n") + (1 if data[-1:] != b"\n" else 0))
    for scanner in scanners:
        if not scanner.applies_to(file):
            continue
        try:
            outcome.findings.extend(f.to_dict() for f in scanner.scan_file(file, data))
        except Exception as exc:  # a scanner bug must not lose the whole audit
            outcome.error = f"{scanner.name}: {type(exc).__name__}: {exc}"
        outcome.notes.extend(take_notes(scanner))
    return outcome


# --- worker-process side -------------------------------------------------------------

_WORKER_SCANNERS: list[FileScanner] = []
_INHERITED: tuple[int, tuple[str, ...]] | None = None  # (parent pid, names) of primed scanners


def prime_workers(scanners: list[FileScanner], names: list[str]) -> None:
    """Let forked workers use the parent's (already built and warmed) scanners instead of
    building their own; a spawned worker, which inherits nothing, still builds them."""
    global _WORKER_SCANNERS, _INHERITED
    _WORKER_SCANNERS = scanners
    _INHERITED = (os.getpid(), tuple(names)) if scanners else None


def worker_init(config: SecurityConfig, names: list[str]) -> None:
    global _WORKER_SCANNERS
    if _INHERITED is not None and _INHERITED[0] == os.getppid() and _INHERITED[1] == tuple(names):
        return
    _WORKER_SCANNERS = build_file_scanners(config, names)


def worker_scan(files: list[SourceFile]) -> list[FileOutcome]:
    out = []
    for file in files:
        try:
            data = file.path.read_bytes()
        except OSError:
            out.append(FileOutcome(file.rel, skipped="unreadable"))
            continue
        out.append(scan_one(_WORKER_SCANNERS, file, data))
    return out
