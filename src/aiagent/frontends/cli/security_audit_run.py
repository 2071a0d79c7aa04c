"""The runner behind `aiagent security-audit` (kept apart so `--help` stays light)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiagent.engines.security.config import SecurityConfig
    from aiagent.engines.security.defaults import SecurityDefaults
    from aiagent.engines.security.engine import AuditOptions, AuditResult
    from aiagent.engines.security.gating import Gate
    from aiagent.engines.security.report.common import ReportOptions
    from aiagent.engines.security.skillsession import SkillSession
    from aiagent.frontends.cli.security_audit_llm import LlmRequest
    from aiagent.infra.config.settings import Settings

import click

from aiagent.engines.security.defaults import load_defaults, policy_path
from aiagent.engines.security.deps.osv_online import online_warnings
from aiagent.engines.security.deps.osv_settings import resolve_online
from aiagent.engines.security.diffscope import changed_files
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Severity
from aiagent.engines.security.gating import Gate, check
from aiagent.engines.security.paths import cache_dir, default_osv_db
from aiagent.engines.security.report import get_renderer
from aiagent.engines.security.report.common import ReportOptions
from aiagent.engines.security.scanners.registry import scanner_names
from aiagent.engines.security.skillsession import SkillSession
from aiagent.frontends.cli.errors import EXIT_GATE, EXIT_OK, EXIT_USAGE
from aiagent.frontends.cli.security_audit_llm import LlmUnavailable
from aiagent.frontends.cli.security_audit_llm import prepare as prepare_llm
from aiagent.frontends.cli.settings_load import settings_flags
from aiagent.infra.config.settings import ConfigError, Settings

EXIT_FINDINGS = EXIT_GATE  # the gate failed; internal errors are 5 (cli/errors.py)


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
    include_info: bool = False  # --include-info: SARIF keeps info-level results


def run(req: AuditRequest) -> int:

    try:
        settings = _settings(req)
        with SkillSession(req.skills, req.approve_skills, _warn, settings=settings) as skills:
            return _run(req, skills, settings)
    except SecurityConfigError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        return EXIT_USAGE
    except LlmUnavailable as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        return exc.exit_code


def _settings(req: AuditRequest) -> Settings:
    """The folder's settings, loaded once for the whole audit, with the command line's
    (``aiagent --trust security-audit …`` trusts the folder for this run)."""

    root = req.path.resolve()
    try:
        return Settings.load(root if root.is_dir() else root.parent, settings_flags())
    except ConfigError as exc:
        raise SecurityConfigError("config.toml", "", str(exc)) from None


def _run(req: AuditRequest, skills: SkillSession, settings: Settings) -> int:
    from aiagent.engines.security.config import load_config
    from aiagent.engines.security.engine import run_audit

    root = req.path.resolve()
    base = root if root.is_dir() else root.parent
    defaults = load_defaults(settings)
    policy = policy_path(base, req.config_path, defaults)
    config = load_config(policy)
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
    _write_report(req, result)
    outcome = check(result.findings, _gate(req, config, defaults, policy.name if policy else ""))
    if outcome.failed:
        click.echo(f"aiagent: {outcome.message}", err=True)
        return EXIT_FINDINGS
    return EXIT_OK


def _write_report(req: AuditRequest, result: AuditResult) -> None:

    options = _report_options(req)
    report = get_renderer(req.output)(result, options)
    if req.out_file is not None:
        _write_atomically(req.out_file, report)
        if req.output != "table":
            report = get_renderer("table")(result, options)
    try:
        sys.stdout.write(report)
    except UnicodeEncodeError as exc:
        raise SecurityConfigError("stdout", "", f"cannot encode the report ({exc.reason})") from None


def _write_atomically(path: Path, text: str) -> None:
    import os
    import tempfile


    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise SecurityConfigError("--out", str(path), f"cannot write ({exc.strerror})") from None


def _report_options(req: AuditRequest) -> ReportOptions:
    import os
    import shutil


    tty = sys.stdout.isatty()
    color = tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    width = shutil.get_terminal_size((120, 24)).columns if tty else 120
    return ReportOptions(include_info=req.include_info, color=color, width=width)


def _gate(req: AuditRequest, config: SecurityConfig, defaults: SecurityDefaults,
          policy: str) -> Gate:
    """The thresholds in force, each with where it came from (flag, policy file, config)."""

    fail_on, fail_from = None, "--fail-on"
    if req.fail_on:
        fail_on = Severity.parse(req.fail_on)
    elif config.fail_on is not None:
        fail_on, fail_from = config.fail_on, f"ci.fail_on in {policy}"
    elif defaults.fail_on is not None:
        fail_on, fail_from = defaults.fail_on, "[security] fail_on in config.toml"
    if req.max_findings is not None:
        return Gate(fail_on, req.max_findings, fail_from)
    max_from = f"ci.max_findings in {policy}"
    return Gate(fail_on, config.max_findings, fail_from, max_from)


def _options(req: AuditRequest, root: Path, defaults: SecurityDefaults) -> AuditOptions:
    from aiagent.engines.security.engine import AuditOptions

    return AuditOptions(
        scanners=req.scanners, jobs=req.jobs, history=req.history,
        cache_path=None if req.no_cache else cache_dir() / "scan-cache.sqlite",
        osv_db=req.osv_db or default_osv_db(),
        changed_files=_changed(req, root), progress=_progress() if req.interactive else None,
        osv_online=resolve_online(req.online, defaults.osv_online, defaults.osv_url,
                                  defaults.osv_cache_hours),
    )


def _changed(req: AuditRequest, root: Path) -> frozenset[str] | None:

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
