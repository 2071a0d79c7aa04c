"""`aiagent security-audit`: run the static security engine and report (offline, no key)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from aiagent.frontends.cli.security_audit_llm import LlmRequest, llm_options
from aiagent.frontends.cli.security_audit_run import AuditRequest, run

OUTPUTS = ["table", "json", "markdown", "sarif", "github", "cyclonedx"]
SEVERITIES = ["critical", "high", "medium", "low", "info"]


EPILOG = """\b
Exit codes:
  0  no gate failed (or no gate set)
  1  a gate failed: --fail-on / --max-findings or ci.* in the policy file;
     stderr says which threshold and the counts, e.g.
     "aiagent: gate failed (--fail-on high): 3 findings at or above high
     (1 critical, 2 high), 0 allowed"
  2  usage or configuration error (bad flag, bad .security.yaml or rule file)
  5  internal error (run with --debug for the traceback)

\b
Findings in tests, examples, fixtures, docs, vendored and generated code are
demoted one severity level (see docs/security.md, "Path context")."""


@click.command("security-audit", epilog=EPILOG)
@click.argument("path", default=".", type=click.Path(exists=True, path_type=Path))
@click.option("--output", "-o", "output", type=click.Choice(OUTPUTS), default="table",
              show_default=True, help="Report format.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to FILE (a summary table still goes to stdout).")
@click.option("--scope", type=click.Choice(["full", "diff"]), default="full", show_default=True)
@click.option("--diff", "diff_range", metavar="A..B", help="Git range for --scope diff.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), help="Exit 1 on any finding at or above this severity.")
@click.option("--max-findings", type=click.IntRange(min=0), help="Exit 1 when more findings than N count against the gate.")
# -- reports (issue 14) --
@click.option("--include-info", is_flag=True, help="SARIF: also emit info-level results (left out by default).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Project policy file (default: PATH/.security.yaml).")
@click.option("--scanners", help="Comma-separated scanners to run (default: all).")
@click.option("--history", is_flag=True, help="Also scan git history for secrets.")
@click.option("--skills", help="Security Rule Skills to use (comma-separated names or skill folders).")
@click.option("--approve-skills", default="", help="Comma-separated skills whose permissions are granted.")
@click.option("--osv-db", type=click.Path(dir_okay=False, path_type=Path),
              help="Advisory database made by `aiagent security db import`.")
@click.option("--online/--offline", "online", default=None,
              help="Also ask the OSV API (cached; default: [security] osv_online, else offline).")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, help="Worker processes (0 = all cores).")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the incremental cache.")
@llm_options  # --llm, --llm-budget, --llm-analyzers, --provider, --model (security_audit_llm.py)
def security_audit(path: Path, output: str, out_file: Path | None, scope: str,
                   diff_range: str | None, fail_on: str | None, max_findings: int | None,
                   config_path: Path | None, scanners: str | None, history: bool, llm: LlmRequest,
                   skills: str | None, approve_skills: str, osv_db: Path | None, jobs: int, no_cache: bool,
                   online: bool | None, include_info: bool) -> None:
    """Audit PATH for secrets, vulnerable code, risky config and vulnerable dependencies."""

    request = AuditRequest(
        path=path, output=output, out_file=out_file, scope=scope, diff_range=diff_range,
        fail_on=fail_on, max_findings=max_findings, config_path=config_path,
        scanners=tuple(s.strip() for s in (scanners or "").split(",") if s.strip()),
        history=history, skills=_names(skills), approve_skills=_names(approve_skills),
        osv_db=osv_db, jobs=jobs, no_cache=no_cache, online=online,
        interactive=sys.stderr.isatty(), llm=llm, include_info=include_info,
    )
    sys.exit(run(request))


def _names(value: str | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.strip() for s in (value or "").split(",") if s.strip()))
