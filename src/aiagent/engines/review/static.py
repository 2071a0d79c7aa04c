"""The static part (no model): the security engine on the changed files, its findings kept
where they touch changed lines (± context); dependency changes checked against the advisory
database and the licence policy (the audit's own scanners, on changed lockfiles and
manifests); secrets only on added lines.

The engine scans the new side of the diff: the working tree in place, else the changed
files as they are in the index or the commit, written to a temporary folder first."""

from __future__ import annotations

import io
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from aiagent.engines.review.findings import ReviewFinding
from aiagent.engines.review.gitdiff import ReviewInputError, Selection, git
from aiagent.engines.review.hunks import FileChange
from aiagent.engines.security.defaults import SecurityDefaults, policy_path
from aiagent.engines.security.finding import Finding
from aiagent.engines.security.paths import cache_dir, default_osv_db

if TYPE_CHECKING:
    from aiagent.engines.security.defaults import SecurityDefaults


CONTEXT = 3
ARGS_PER_CALL = 200


def run_static(sel: Selection, files: list[FileChange], folder: Path,
               defaults: SecurityDefaults | None = None) -> tuple[list[ReviewFinding], list[str]]:
    """The static findings on the diff (``folder``: the new side, see :func:`new_side`),
    and warnings from the engine; ``defaults``: the caller's ``[security]`` settings."""
    from aiagent.engines.security.config import load_config
    from aiagent.engines.security.engine import AuditOptions, run_audit

    scanned = {f.path: f for f in files if f.status != "deleted" and f.note != "binary file"
               and f.note != "submodule"}
    if not scanned:
        return [], []
    defaults = defaults or SecurityDefaults()
    config = load_config(policy_path(sel.root, None, defaults))
    options = AuditOptions(changed_files=frozenset(scanned), osv_db=default_osv_db(),
                           cache_path=cache_dir() / "scan-cache.sqlite", jobs=1)
    result = run_audit(folder, config, options)
    kept = [_convert(f) for f in result.findings if _on_diff(f, scanned)]
    return kept, list(result.warnings)


def _on_diff(finding: object, files: dict[str, FileChange]) -> bool:
    loc = finding.location  # type: ignore[attr-defined]
    change = files.get(loc.file)
    if change is None:
        return False
    if loc.start_line <= 0:
        return change.status == "added"
    if finding.category.value == "secrets-exposure":  # type: ignore[attr-defined]
        return change.near_added(loc.start_line, max(loc.end_line, loc.start_line), 0)
    return change.near_added(loc.start_line, max(loc.end_line, loc.start_line), CONTEXT)


def _convert(f: object) -> ReviewFinding:

    assert isinstance(f, Finding)
    loc = f.location
    extra = {"scanner": f.scanner, "security_category": f.category.value}
    if f.cwe:
        extra["cwe"] = f.cwe
    return ReviewFinding(
        rule_id=f.id, source="static", category="security", severity=f.severity.value,
        file=loc.file, start_line=max(loc.start_line, 1),
        end_line=max(loc.end_line, loc.start_line, 1), title=f.title,
        explanation=f.description or f.title, suggested_fix="",
        evidence=f.evidence, extra=extra | ({"remediation": f.remediation} if f.remediation else {}))


@contextmanager
def new_side(sel: Selection, paths: list[str]) -> Iterator[Path]:
    """A folder holding ``paths`` as they are on the new side of the diff."""
    if sel.new_side == "worktree":
        yield sel.root
        return
    with tempfile.TemporaryDirectory(prefix="aiagent-review-") as tmp:
        folder = Path(tmp)
        for start in range(0, len(paths), ARGS_PER_CALL):
            chunk = paths[start:start + ARGS_PER_CALL]
            if sel.new_side == "index":
                _checkout_index(sel.root, folder, chunk)
            else:
                _archive(sel.root, sel.new_side, folder, chunk)
        yield folder


def _checkout_index(root: Path, folder: Path, paths: list[str]) -> None:
    code, _, err = git(root, "checkout-index", f"--prefix={folder}/", "--", *paths)
    if code != 0:
        raise ReviewInputError(f"cannot read the staged files: {err}")


def _archive(root: Path, commit: str, folder: Path, paths: list[str]) -> None:
    code, out, err = git(root, "archive", "--format=tar", commit, "--", *paths)
    if code != 0:
        raise ReviewInputError(f"cannot read the files of {commit[:12]}: {err}")
    with tarfile.open(fileobj=io.BytesIO(out)) as tar:
        tar.extractall(folder, filter="data")
