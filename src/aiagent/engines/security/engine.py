"""The audit: discover files once, run scanners (in parallel, cached), then post-process.

Front-ends call :func:`run_audit` and render the :class:`AuditResult`.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent.engines.security.cache import ScanCache, cache_key
from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.deps.osv_settings import OsvOnlineSettings
from aiagent.engines.security.diffscope import repo_prefix
from aiagent.engines.security.discovery import Inventory, SourceFile, discover
from aiagent.engines.security.filescan import (
    FileOutcome,
    prime_workers,
    scan_one,
    worker_init,
    worker_scan,
)
from aiagent.engines.security.finding import AttackChain, Finding
from aiagent.engines.security.postprocess import finalize, prepare_finalize
from aiagent.engines.security.scanners.base import FileScanner, ProjectScanner, ScanContext
from aiagent.engines.security.scanners.registry import load_factory, scanner_names
from aiagent.engines.security.signature import scanners_signature

PARALLEL_MIN_FILES = 150
CHUNK_FILES = 40  # at most this many files per chunk a worker takes at a time
CHUNKS_PER_JOB = 8  # chunks per worker (by bytes): small enough to balance the tail
FILE_COST = 2_000  # a file's fixed cost in bytes-equivalent (opening, a parse tree)

Progress = Callable[[int, int], None]


@dataclass(slots=True)
class AuditOptions:
    scanners: tuple[str, ...] = ()
    jobs: int = 0
    cache_path: Path | None = None
    osv_db: Path | None = None
    history: bool = False
    changed_files: frozenset[str] | None = None
    progress: Progress | None = None
    osv_online: OsvOnlineSettings | None = None  # also ask the OSV API (--online), cached


@dataclass(slots=True)
class AuditResult:
    root: Path
    findings: list[Finding]
    chains: list[AttackChain]
    skipped: Counter[str]
    files_scanned: int
    lines_scanned: int
    duration_s: float
    scanners: list[str]
    file_scores: dict[str, int] = field(default_factory=dict)
    components: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cached_files: int = 0
    uri_prefix: str = ""  # the scanned root's path inside its git repository ("" at the top)
    licenses: dict[str, str] = field(default_factory=dict)  # purl -> SPDX expression
    project_license: str = ""  # SPDX expression declared at the scanned root
    llm: dict[str, Any] = field(default_factory=dict)  # the LLM phase's report, when it ran


def run_audit(root: Path, config: SecurityConfig, options: AuditOptions | None = None) -> AuditResult:
    options = options or AuditOptions()
    started = time.perf_counter()
    names = list(options.scanners) or scanner_names()
    inventory = discover(root, config.exclude)
    if options.changed_files is not None:
        inventory.files = [f for f in inventory.files if f.rel in options.changed_files]
    ctx = ScanContext(inventory.root, config, options.osv_db, osv_online=options.osv_online)
    built = [load_factory(name)(config) for name in names]
    file_scanners = [s for s in built if isinstance(s, FileScanner)]
    # workers rebuild only the file scanners (project scanners may live in this process only)
    file_names = [n for n, s in zip(names, built, strict=True) if isinstance(s, FileScanner)]
    project = _ProjectPhase(built, inventory, ctx, options.history)
    # the project scanners run here while worker processes scan the files
    outcomes, cached = _scan_files(inventory, config, file_names, file_scanners, options, project.run)
    findings = [Finding.from_dict(d) for o in outcomes for d in o.findings]
    findings.extend(project.findings)
    result = _result(inventory, config, outcomes, findings, project.components, ctx, names,
                     started, cached)
    result.licenses, result.project_license = project.licenses, project.project_license
    return result


@dataclass(slots=True)
class _ProjectPhase:
    """The project scanners (and the history scan): what the audit does besides files."""

    built: list[Any]
    inventory: Inventory
    ctx: ScanContext
    history: bool
    findings: list[Finding] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    licenses: dict[str, str] = field(default_factory=dict)
    project_license: str = ""

    def run(self) -> None:
        for scanner in self.built:
            if isinstance(scanner, ProjectScanner) and not isinstance(scanner, FileScanner):
                self.findings.extend(scanner.scan_project(self.inventory, self.ctx))
                self.components.extend(getattr(scanner, "components", []))
                self.licenses.update(getattr(scanner, "licenses", {}))
                self.project_license = self.project_license or getattr(scanner, "project_license", "")
        if self.history:
            from aiagent.engines.security.history import scan_history

            self.findings.extend(scan_history(self.inventory.root, self.ctx.config, self.ctx.warnings))
        prepare_finalize()  # compile what post-processing needs, also while workers scan


def _result(inventory: Inventory, config: SecurityConfig, outcomes: list[FileOutcome],
            findings: list[Finding], components: list[dict[str, Any]], ctx: ScanContext,
            names: list[str], started: float, cached: int) -> AuditResult:
    skipped = Counter(inventory.skipped)
    skipped.update(o.skipped for o in outcomes if o.skipped)
    warnings = [*ctx.warnings, *(f"{o.rel}: {o.error}" for o in outcomes if o.error),
                *(f"{o.rel}: {note}" for o in outcomes for note in o.notes)]
    final, chains, scores = finalize(findings, config, inventory)
    return AuditResult(
        root=inventory.root,
        findings=final,
        chains=chains,
        skipped=skipped,
        files_scanned=sum(1 for o in outcomes if not o.skipped),
        lines_scanned=sum(o.lines for o in outcomes),
        duration_s=time.perf_counter() - started,
        scanners=names,
        file_scores=scores,
        components=components,
        warnings=warnings,
        cached_files=cached,
        uri_prefix=repo_prefix(inventory.root),
    )


def _scan_files(inventory: Inventory, config: SecurityConfig, names: list[str],
                scanners: list[FileScanner], options: AuditOptions,
                meanwhile: Callable[[], None]) -> tuple[list[FileOutcome], int]:
    if options.cache_path is None:  # no cache: no content hashes (each file is read once)
        return _run(inventory.files, config, names, scanners, options, meanwhile), 0
    cache = ScanCache(options.cache_path)
    signature = scanners_signature(scanners, config)
    keys: dict[str, str] = {}
    for file in inventory.files:
        try:
            keys[file.rel] = cache_key(signature, file.rel, file.path.read_bytes())
        except OSError:
            keys[file.rel] = ""
    hits = cache.get_many([k for k in keys.values() if k])
    outcomes = [FileOutcome(**hits[keys[f.rel]]) for f in inventory.files if keys[f.rel] in hits]
    todo = [f for f in inventory.files if keys[f.rel] not in hits]
    fresh = _run(todo, config, names, scanners, options, meanwhile)
    cache.put_many({keys[o.rel]: _as_dict(o) for o in fresh
                    if keys.get(o.rel) and not o.error and not o.notes})
    cache.close()
    return outcomes + fresh, len(outcomes)


def _run(files: list[SourceFile], config: SecurityConfig, names: list[str],
         scanners: list[FileScanner], options: AuditOptions,
         meanwhile: Callable[[], None]) -> list[FileOutcome]:
    jobs = options.jobs or os.cpu_count() or 1
    total = len(files)
    if jobs <= 1 or total < PARALLEL_MIN_FILES:
        out = []
        for i, file in enumerate(files, 1):
            try:
                out.append(scan_one(scanners, file, file.path.read_bytes()))
            except OSError:
                out.append(FileOutcome(file.rel, skipped="unreadable"))
            if options.progress:
                options.progress(i, total)
        meanwhile()
        return out
    for scanner in scanners:  # warm once here; forked workers inherit it
        warm = getattr(scanner, "warm", None)
        if warm is not None:
            warm({f.language for f in files if f.language})
    prime_workers(scanners, names)
    try:
        return _run_parallel(files, config, names, jobs, options.progress, meanwhile)
    finally:
        prime_workers([], [])


def _run_parallel(files: list[SourceFile], config: SecurityConfig, names: list[str], jobs: int,
                  progress: Progress | None, meanwhile: Callable[[], None]) -> list[FileOutcome]:
    """Scan in ``jobs`` worker processes; this process runs ``meanwhile`` as they work.
    Outcomes come back in ``files`` order whatever order the chunks finish in."""
    chunks = balanced_chunks([f.size for f in files], jobs)
    methods = multiprocessing.get_all_start_methods()
    mp = multiprocessing.get_context("fork" if "fork" in methods else None)
    slots: list[FileOutcome | None] = [None] * len(files)
    done = 0
    with ProcessPoolExecutor(jobs, mp_context=mp, initializer=worker_init,
                             initargs=(config, names)) as pool:
        futures = [pool.submit(worker_scan, [files[i] for i in chunk]) for chunk in chunks]
        try:
            meanwhile()
            for chunk, future in zip(chunks, futures, strict=True):
                for i, outcome in zip(chunk, future.result(), strict=True):
                    slots[i] = outcome
                done += len(chunk)
                if progress:
                    progress(done, len(files))
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return [o for o in slots if o is not None]


def balanced_chunks(sizes: list[int], jobs: int) -> list[list[int]]:
    """Indexes of the files in chunks for the workers: largest files first, each chunk
    about 1/(jobs * CHUNKS_PER_JOB) of the bytes (at most CHUNK_FILES files), so the last
    chunks are small and no worker is left alone with a big one at the end."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    budget = max(1, sum(sizes) // max(1, jobs * CHUNKS_PER_JOB))
    chunks: list[list[int]] = []
    current: list[int] = []
    weight = 0
    for i in order:
        current.append(i)
        weight += sizes[i] + FILE_COST
        if weight >= budget or len(current) >= CHUNK_FILES:
            chunks.append(current)
            current, weight = [], 0
    if current:
        chunks.append(current)
    return chunks


def _as_dict(o: FileOutcome) -> dict[str, Any]:
    return {"rel": o.rel, "findings": o.findings, "skipped": o.skipped, "lines": o.lines}
