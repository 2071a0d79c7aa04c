"""The runner behind `aiagent security-audit` (kept apart so `--help` stays light)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiagent.cli.security_audit_llm import LlmRequest
    from aiagent.security.defaults import SecurityDefaults
    from aiagent.security.engine import AuditOptions
    from aiagent.skills.security_audit import SkillSession

import click

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class AuditRequest:
    path: Path
    output: str = "table"
    out_file: Path | None = None
    scope: str = "full"
    diff_range: str | None = None
    fail_on: str | None = None
    max_findings: int | None = None
    config_path: Path | None = None
    scanners: tuple[str, ...] = ()
    history: bool = False
    skills: tuple[str, ...] = ()
    approve_skills: tuple[str, ...] = ()  # --approve-skills: permissions granted up front
    osv_db: Path | None = None
    jobs: int = 0
    no_cache: bool = False
    interactive: bool = False
    online: bool | None = None  # --online / --offline; None: [security] osv_online
    llm: LlmRequest | None = None  # the LLM phase's options (security_audit_llm.py)


def run(req: AuditRequest) -> int:
    from aiagent.cli.security_audit_llm import LlmUnavailable
    from aiagent.security.errors import SecurityConfigError
    from aiagent.skills.security_audit import SkillSession

    try:
        with SkillSession(req.skills, req.approve_skills, _warn) as skills:
            return _run(req, skills)
    except SecurityConfigError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        return EXIT_USAGE
    except LlmUnavailable as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        return exc.exit_code


def _run(req: AuditRequest, skills: SkillSession) -> int:
    from aiagent.cli.security_audit_llm import prepare as prepare_llm
    from aiagent.security.config import load_config
    from aiagent.security.defaults import load_defaults, policy_path
    from aiagent.security.deps.osv_online import online_warnings
    from aiagent.security.engine import run_audit
    from aiagent.security.errors import SecurityConfigError
    from aiagent.security.finding import Severity
    from aiagent.security.gating import exceeds
    from aiagent.security.report import get_renderer
    from aiagent.security.scanners.registry import scanner_names

    root = req.path.resolve()
    base = root if root.is_dir() else root.parent
    defaults = load_defaults(base)
    config = load_config(policy_path(base, req.config_path, defaults))
    config = skills.prepare(base, config)  # Security Rule Skills: rules and scanners
    unknown = [s for s in req.scanners if s not in scanner_names()]
    if unknown:
        raise SecurityConfigError("--scanners", unknown[0],
                                  f"unknown scanner (known: {', '.join(scanner_names())})")
    llm = prepare_llm(req.llm, base)  # before scanning: --llm without a model is exit 3
    result = run_audit(root, config, skills.with_scanners(_options(req, root, defaults)))
    if llm is not None:
        llm.apply(result, config)
    if req.interactive:
        click.echo("\r\033[K", nl=False, err=True)
    skills.scan_complete(result)
    for warning in online_warnings(result.warnings):
        click.echo(f"warning: {warning}", err=True)
    report = get_renderer(req.output)(result)
    if req.out_file is not None:
        req.out_file.parent.mkdir(parents=True, exist_ok=True)
        req.out_file.write_text(report, encoding="utf-8")
        if req.output != "table":
            report = get_renderer("table")(result)
    sys.stdout.write(report)
    fail_on = Severity.parse(req.fail_on) if req.fail_on else (config.fail_on or defaults.fail_on)
    max_findings = req.max_findings if req.max_findings is not None else config.max_findings
    return EXIT_FINDINGS if exceeds(result.findings, fail_on, max_findings) else EXIT_OK


def _options(req: AuditRequest, root: Path, defaults: SecurityDefaults) -> AuditOptions:
    from aiagent.security.deps.osv_settings import resolve_online
    from aiagent.security.engine import AuditOptions
    from aiagent.security.paths import cache_dir, default_osv_db

    return AuditOptions(
        scanners=req.scanners, jobs=req.jobs, history=req.history,
        cache_path=None if req.no_cache else cache_dir() / "scan-cache.sqlite",
        osv_db=req.osv_db or default_osv_db(),
        changed_files=_changed(req, root), progress=_progress() if req.interactive else None,
        osv_online=resolve_online(req.online, defaults.osv_online, defaults.osv_url,
                                  defaults.osv_cache_hours),
    )


def _changed(req: AuditRequest, root: Path) -> frozenset[str] | None:
    from aiagent.security.diffscope import changed_files
    from aiagent.security.errors import SecurityConfigError

    if req.scope != "diff":
        if req.diff_range:
            raise SecurityConfigError("--diff", req.diff_range, "needs --scope diff")
        return None
    return changed_files(root, req.diff_range or "HEAD~1..HEAD")


def _progress() -> Callable[[int, int], None]:
    def report(done: int, total: int) -> None:
        click.echo(f"\rscanning {done}/{total} files", nl=False, err=True)

    return report


def _warn(message: str) -> None:
    click.echo(f"warning: {message}", err=True)
