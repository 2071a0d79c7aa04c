"""Security Rule Skills in the security audit (spec §4.1, §4.11, Appendix A).

Which skills: those named with ``--skills`` (names or skill folders), plus the project's
own skills of type ``security-rule`` (``.agent/skills``, ``.claude/skills``,
``.agents/skills``). Their rule files join the SAST scan (checked first: a bad one stops
the audit with one line); skills with code are activated — permissions asked for or
pre-approved as everywhere else — and their scanners are registered with the engine.
After the audit, ``on_security_scan_complete`` hooks get the findings. A skill that
cannot load is reported and the audit goes on without it.

This module is light: the skill runtime is imported only when skills are in play, so a
plain audit stays as fast as before. Front-ends (``aiagent security-audit``) hand it a
``report`` for the problems it finds.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.agent.skills.approvals import terminal_approver
from aiagent.agent.skills.backends.base import BackendError
from aiagent.agent.skills.permissions import PermissionDenied
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.report.common import severity_counts
from aiagent.engines.security.scanners.registry import register_scanner, unregister_scanner
from aiagent.engines.security.scanners.skill_adapter import SkillScannerAdapter
from aiagent.infra.config.paths import project_root
from aiagent.infra.config.settings import ConfigError, Settings

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

    from aiagent.agent.skills.runtime import SkillRuntime
    from aiagent.engines.security.config import SecurityConfig
    from aiagent.engines.security.engine import AuditOptions, AuditResult
    from aiagent.infra.config.settings import Settings

    Report = Callable[[str], None]

PROJECT_SKILL_DIRS = (".agent/skills", ".claude/skills", ".agents/skills")


def report_to_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


@dataclass(slots=True)
class SkillSession:
    """The audit's skills: ``prepare`` before scanning, ``scan_complete`` after; a context
    manager that closes the runtime and unregisters the scanners. Idle without skills."""

    requested: tuple[str, ...] = ()
    approve: tuple[str, ...] = ()
    report: Report = report_to_stderr
    runtime: SkillRuntime | None = None
    runner: asyncio.Runner | None = None
    names: list[str] = field(default_factory=list)  # the security-rule skills in use
    scanners: list[str] = field(default_factory=list)  # engine names: SKILL/SCANNER
    settings: Settings | None = None  # the front-end's, loaded once (its trust decides)

    def __enter__(self) -> SkillSession:
        return self

    def __exit__(self, *exc: object) -> None:

        for name in self.scanners:
            unregister_scanner(name)
        if self.runner is not None:
            if self.runtime is not None:
                self.runner.run(self.runtime.close())
            self.runner.close()

    def prepare(self, base: Path, config: SecurityConfig) -> SecurityConfig:
        """Pick the skills, add their rules to ``config`` and register their scanners."""
        if not wanted(base, self.requested):
            return config
        import asyncio

        self.runner = asyncio.Runner()
        assert self.settings is not None, "the front-end's settings (loaded once) are needed"
        self.runtime = _runtime(self.settings, self.requested, self.approve, self.report)
        # a skill's file access is relative to (and bounded by) the audited folder
        self.runtime.services.root = Path(os.path.realpath(base))
        self.names = _select(self.runtime, self.requested, self.report)
        config = self._apply_rules(config)
        self._start_scanners()
        return config

    def with_scanners(self, options: AuditOptions) -> AuditOptions:
        """An explicit ``--scanners`` list still runs the skills' scanners."""
        if options.scanners:
            options.scanners = (*options.scanners,
                                *(s for s in self.scanners if s not in options.scanners))
        return options

    def _apply_rules(self, config: SecurityConfig) -> SecurityConfig:
        from aiagent.engines.security.skillrules import apply_skill_rules

        assert self.runtime is not None
        files = [r for r in self.runtime.security_rules() if r.skill in self.names]
        return apply_skill_rules(config, files)

    def _start_scanners(self) -> None:
        """Activate the chosen skills that have code and register their scanners."""

        assert self.runtime is not None and self.runner is not None
        for name in self.names:
            if self.runtime.entries[name].manifest.implementation is not None:
                self._activate(name)
        for scanner in self.runtime.security_scanners():
            if scanner.skill in self.names:
                adapter = SkillScannerAdapter(scanner.skill, scanner.name,
                                              self._caller(scanner), scanner.description)
                register_scanner(adapter.name, adapter.factory)
                self.scanners.append(adapter.name)
        self._check_declared()

    def _caller(self, scanner: Any) -> Callable[[Any], Any]:
        """Run the scanner on the session's loop, bounded like a process-skill call."""
        import asyncio

        runner, runtime = self.runner, self.runtime
        assert runner is not None and runtime is not None
        limit = runtime.services.limits.call_timeout

        async def call(data: Any) -> Any:
            try:
                return await asyncio.wait_for(scanner.run(data), limit)
            except TimeoutError:
                raise TimeoutError(f"timed out after {limit:g}s") from None

        return lambda data: runner.run(call(data))

    def _activate(self, name: str) -> None:
        assert self.runtime is not None and self.runner is not None
        try:
            self.runner.run(self.runtime.activate(name, "security-audit"))
        except _skill_errors() as exc:
            self.report(f"{exc} (the audit goes on without its scanners)")

    def _check_declared(self) -> None:
        assert self.runtime is not None
        registered = set(self.scanners)
        for name in self.names:
            if name not in self.runtime.active:
                continue
            rules = self.runtime.entries[name].manifest.security_rules
            for decl in rules.scanners if rules else ():
                if f"{name}/{decl.name}" not in registered:
                    self.report(f"skill {name}: scanner {decl.name} is declared in the manifest "
                                "but its code did not register it (register_scanner)")

    def scan_complete(self, result: AuditResult) -> None:
        """Fire ``on_security_scan_complete`` with the final findings."""
        if self.runtime is None or self.runner is None or not self.runtime.active:
            return

        event = {
            "root": str(result.root),
            "findings": [f.to_dict() for f in result.findings],
            "summary": {s.value: n for s, n in severity_counts(result.findings).items()},
            "chains": [c.to_dict() for c in result.chains],
        }
        self.runner.run(self.runtime.fire("on_security_scan_complete", event))


def wanted(base: Path, requested: tuple[str, ...]) -> bool:
    """Cheap test: are skills asked for, or might the project hold some?"""
    if requested:
        return True

    roots = {project_root(base), base}
    return any((root / d).is_dir() for root in roots for d in PROJECT_SKILL_DIRS)


def _runtime(settings: Settings, requested: tuple[str, ...], approve: tuple[str, ...],
             report: Report) -> SkillRuntime:
    from aiagent.agent.skills.factory import create_runtime
    from aiagent.agent.skills.loader import looks_like_path

    refs = [str(Path(os.path.expanduser(r)).resolve()) if looks_like_path(r) else r for r in requested]
    try:
        return create_runtime(settings, mode="headless", explicit=refs, approve=approve,
                              approver=terminal_approver(), report=report)
    except ConfigError as exc:
        raise SecurityConfigError("config.toml", "skills", str(exc)) from None


def _select(rt: SkillRuntime, requested: tuple[str, ...], report: Report) -> list[str]:
    """Requested security-rule skills, then the project's own; problems reported."""
    from aiagent.agent.skills.loader import looks_like_path

    named = {r for r in requested if not looks_like_path(r)}
    by_path = [_at_path(rt, Path(os.path.expanduser(r))) for r in requested if looks_like_path(r)]
    asked = named | {n for n in by_path if n}
    inline = [n for n, e in rt.entries.items() if e.source == "inline"]
    chosen: list[str] = []
    for name in dict.fromkeys([*rt.explicit, *inline]):
        if name not in chosen and _usable(rt, name, name in asked, report):
            chosen.append(name)
    for name, entry in sorted(rt.entries.items()):
        if entry.source == "project" and name not in chosen and _usable(rt, name, False, report):
            chosen.append(name)
    for broken in rt.broken:
        if broken.source == "project" or broken.name in named:
            report(f"skill {broken.name} cannot load: {broken.error} (audit goes on without it)")
    for name in chosen:
        _imply_implementation(rt, name, report)
    return chosen


def _at_path(rt: SkillRuntime, folder: Path) -> str | None:
    """The skill loaded from ``folder`` (given with --skills); a broken one is reported."""
    real = folder.resolve()
    for name, entry in rt.entries.items():
        if entry.manifest.root.resolve() == real:
            return name
    broken = next((b for b in rt.broken if b.path.resolve() == real), None)
    if broken is None:
        raise SecurityConfigError("--skills", str(folder), "no skill there (a folder with SKILL.yaml or SKILL.md)")
    rt.report(f"skill {broken.name} cannot load: {broken.error} (audit goes on without it)")
    return None


def _usable(rt: SkillRuntime, name: str, asked: bool, report: Report) -> bool:
    entry = rt.entries.get(name)
    if entry is None:
        if asked and not any(b.name == name for b in rt.broken):
            known = ", ".join(sorted(n for n, e in rt.entries.items()
                                     if "security-rule" in e.manifest.types)) or "none"
            raise SecurityConfigError("--skills", name, f"no such skill (security-rule skills: {known})")
        return False
    if "security-rule" not in entry.manifest.types:
        if asked:
            report(f"skill {name} is not a security-rule skill (types: "
                   f"{', '.join(entry.manifest.types)}); ignored by security-audit")
        return False
    problem = rt.usable(entry.manifest)
    if problem:
        report(f"{problem}; audit goes on without it")
        return False
    return True


def _imply_implementation(rt: SkillRuntime, name: str, report: Report) -> None:
    """The spec's shape (§4.11): no ``implementation`` but ``security_rules.scanners`` with
    one Starlark ``entrypoint`` — that file is the skill's code."""
    from aiagent.agent.skills.manifest import Implementation

    entry = rt.entries[name]
    m = entry.manifest
    decls = m.security_rules.scanners if m.security_rules else ()
    files = sorted({d.entrypoint for d in decls if d.entrypoint})
    if m.implementation is not None or not files:
        return
    target = (m.root / files[0]).resolve()
    if len(files) > 1 or not files[0].endswith(".star"):
        report(f"skill {name}: scanner entrypoints {', '.join(files)} need an `implementation` "
               "(one Starlark file, or a process/python backend); scanners skipped")
    elif not target.is_relative_to(m.root.resolve()) or not target.is_file():
        report(f"skill {name}: security_rules.scanners: file {files[0]} not found in the skill; scanners skipped")
    else:
        impl = Implementation(backend="starlark", entrypoint=files[0])
        rt.entries[name] = replace(entry, manifest=replace(m, implementation=impl))


def _skill_errors() -> tuple[type[BaseException], ...]:

    return (BackendError, PermissionDenied, ValueError, LookupError)

