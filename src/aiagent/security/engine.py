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

from aiagent.security.cache import ScanCache, cache_key
from aiagent.security.config import SecurityConfig
from aiagent.security.deps.osv_settings import OsvOnlineSettings
from aiagent.security.diffscope import repo_prefix
from aiagent.security.discovery import Inventory, SourceFile, discover
from aiagent.security.filescan import (
    FileOutcome,
    prime_workers,
    scan_one,
    worker_init,
    worker_scan,
)
from aiagent.security.finding import AttackChain, Finding
from aiagent.security.postprocess import finalize
from aiagent.security.scanners.base import FileScanner, ProjectScanner, ScanContext
from aiagent.security.scanners.registry import load_factory, scanner_names
from aiagent.security.signature import scanners_signature

PARALLEL_MIN_FILES = 150
CHUNK_FILES = 40

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
    outcomes, cached = _scan_files(inventory, config, file_names, file_scanners, options)
    findings = [Finding.from_dict(d) for o in outcomes for d in o.findings]
    components: list[dict[str, Any]] = []
    licenses: dict[str, str] = {}
    project_license = ""
    for scanner in built:
        if isinstance(scanner, ProjectScanner) and not isinstance(scanner, FileScanner):
            findings.extend(scanner.scan_project(inventory, ctx))
            components.extend(getattr(scanner, "components", []))
            licenses.update(getattr(scanner, "licenses", {}))
            project_license = project_license or getattr(scanner, "project_license", "")
    if options.history:
        from aiagent.security.history import scan_history

        findings.extend(scan_history(inventory.root, config, ctx.warnings))
    result = _result(inventory, config, outcomes, findings, components, ctx, names, started, cached)
    result.licenses, result.project_license = licenses, project_license
    return result


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
                scanners: list[FileScanner], options: AuditOptions) -> tuple[list[FileOutcome], int]:
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
    fresh = _run(todo, config, names, scanners, options)
    cache.put_many({keys[o.rel]: _as_dict(o) for o in fresh
                    if keys.get(o.rel) and not o.error and not o.notes})
    cache.close()
    return outcomes + fresh, len(outcomes)


def _run(files: list[SourceFile], config: SecurityConfig, names: list[str],
         scanners: list[FileScanner], options: AuditOptions) -> list[FileOutcome]:
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
        return out
    for scanner in scanners:  # warm once here; forked workers inherit it
        warm = getattr(scanner, "warm", None)
        if warm is not None:
            warm({f.language for f in files if f.language})
    prime_workers(scanners, names)
    try:
        return _run_parallel(files, config, names, jobs, options.progress)
    finally:
        prime_workers([], [])


def _run_parallel(files: list[SourceFile], config: SecurityConfig, names: list[str], jobs: int,
                  progress: Progress | None) -> list[FileOutcome]:
    chunks = [files[i:i + CHUNK_FILES] for i in range(0, len(files), CHUNK_FILES)]
    methods = multiprocessing.get_all_start_methods()
    mp = multiprocessing.get_context("fork" if "fork" in methods else None)
    out: list[FileOutcome] = []
    with ProcessPoolExecutor(jobs, mp_context=mp, initializer=worker_init,
                             initargs=(config, names)) as pool:
        for result in pool.map(worker_scan, chunks):
            out.extend(result)
            if progress:
                progress(len(out), len(files))
    return out


def _as_dict(o: FileOutcome) -> dict[str, Any]:
    return {"rel": o.rel, "findings": o.findings, "skipped": o.skipped, "lines": o.lines}
