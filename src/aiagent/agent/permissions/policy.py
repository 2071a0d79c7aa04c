"""The approval policy: approval modes, saved grants, pre-approvals, the audit trail.

The policy reads what a tool declares (:class:`~aiagent.agent.tools.base.ToolEffect`), never its
name. Order of checks for a tool call: a matching deny (saved, configured or answered)
refuses it; a tool that only reads, or whose effects were approved elsewhere, runs; the mode
decides (read-only refuses writes, auto-edit allows edits inside the workspace, full-auto
allows everything, shell only when sandboxed); a write into a protected path (``.git``, the
agent's own folders and instruction files, see :mod:`aiagent.agent.permissions.protected`) asks
whatever the mode or the grants say; otherwise a matching allow grant or pre-approval runs
it; otherwise a person is asked, and a headless run refuses with a message the model reads.
A shell command allowed without a person approving it carries ``sandbox=True``. Grants are
read from the database on every call, so a revocation takes effect at once, even from
another process.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from aiagent.agent.permissions import commands, protected
from aiagent.contracts.approval import ALLOW, ASK, Decision
from aiagent.contracts.events import ApprovalAnswer
from aiagent.contracts.tools import Tool, ToolEffect, effect_of
from aiagent.infra.config import paths

if TYPE_CHECKING:
    from aiagent.infra.store.approvals import ApprovalStore, Grant

Mode = Literal["read-only", "prompt", "auto-edit", "full-auto"]
MODES: tuple[Mode, ...] = ("read-only", "prompt", "auto-edit", "full-auto")
SANDBOXED = Decision("allow", sandbox=True)
SandboxState = Literal["active", "off", "unavailable"]


@dataclass(frozen=True, slots=True)
class Rule:
    """A pre-approval or pre-denial from flags or config: ``TOOL[:PATTERN]``."""

    tool: str
    pattern: str
    effect: Literal["allow", "deny"]
    source: str
    id: int = 0

    @property
    def label(self) -> str:
        return f"{self.tool}:{self.pattern}" if self.pattern else self.tool


def parse_rule(text: str, effect: Literal["allow", "deny"], source: str) -> Rule:
    tool, _, pattern = text.strip().partition(":")
    if not tool.strip():
        raise ValueError(f"{source}: {text!r} is not TOOL or TOOL:PREFIX")
    return Rule(tool.strip(), pattern.strip(), effect, source)


@dataclass(frozen=True, slots=True)
class Subject:
    """A tool call as the policy sees it."""

    kind: Literal["shell", "write", "tool"]
    tool: str
    line: commands.CommandLine | None = None
    paths: tuple[str, ...] = ()  # project-relative (posix) when inside, else absolute
    inside: bool = True  # every path is inside the workspace
    escalated: bool = False  # the model asked to run it outside the sandbox
    protected: str = ""  # why a path it writes is protected, if one is

    @property
    def family(self) -> str:
        return {"shell": "shell", "write": "write"}.get(self.kind, self.tool)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.family, self.tool)))

    @property
    def what(self) -> str:
        if self.line is not None:
            return self.line.raw
        return " ".join(self.paths)

    def patterns(self) -> list[str]:
        """What an "always" answer saves for this call."""
        if self.kind == "shell":
            line = self.line
            if line is None or not line.analysed:
                return []
            return list(dict.fromkeys(commands.suggest_prefix(c) for c in line.commands))
        if self.kind == "write":
            return list(self.paths)
        return [""]


class PermissionPolicy:
    def __init__(
        self,
        mode: Mode,
        store: ApprovalStore | None,
        *,
        workspace: Path,
        project: Path | None = None,
        session_id: str = "",
        rules: Iterable[Rule] = (),
        interactive: bool = False,
        sandbox: SandboxState = "unavailable",
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown approval mode {mode!r} (known: {', '.join(MODES)})")
        self.mode, self.store = mode, store
        self.workspace = workspace.resolve()
        self.project = (project or workspace).resolve()
        self.session_id, self.interactive, self.sandbox = session_id, interactive, sandbox
        self.rules = list(rules)

        self.user_dirs = (paths.config_dir(), paths.data_dir())

    # ---- the ApprovalPolicy protocol ---------------------------------------------------

    async def decide(self, tool: Tool, args: dict[str, Any]) -> Decision:
        subject = self.subject(tool, args)
        denied = self._match(subject, "deny")
        if denied is not None:
            self._audit("refuse", subject, denied)
            return Decision.deny(f"{subject.tool} {subject.what!r} is denied by rule "
                                 f"{_describe(denied)}")
        effect = effect_of(tool)
        if effect.read_only or effect.approved_by:
            return ALLOW
        verdict = self._by_mode(subject)
        if verdict.verdict == "deny":
            return verdict
        if subject.protected:
            return self._ask(subject, Decision("ask", subject.protected + "; it always asks"))
        if verdict.verdict == "allow":
            return self._unattended(subject)
        granted = self._match(subject, "allow")
        if granted is not None:
            self._audit("use", subject, granted)
            return self._unattended(subject)
        return self._ask(subject, verdict)

    def _unattended(self, subject: Subject) -> Decision:
        """Allowed with no person approving this call: a shell command must be sandboxed,
        unless the sandbox is off (``[sandbox] backend = "none"``, known in full-auto only:
        elsewhere a project's own config could set it, so it is not honoured)."""
        return SANDBOXED if subject.kind == "shell" and self.sandbox != "off" else ALLOW

    def _ask(self, subject: Subject, verdict: Decision) -> Decision:
        """``verdict`` (ask) for a person; a headless run refuses with how to allow it."""
        if not self.interactive:
            self._audit("refuse", subject, None)
            return Decision.deny(self._headless_message(subject, verdict.reason))
        return verdict

    def record(self, tool: Tool, args: dict[str, Any], answer: ApprovalAnswer) -> None:
        subject = self.subject(tool, args)
        if subject.protected and answer != "deny":
            answer = "once"  # a protected path asks every time: nothing to save
        if answer == "once":
            self._audit("allow-once", subject, None)
            return
        effect: Literal["allow", "deny"] = "deny" if answer == "deny" else "allow"
        scope = "session" if answer in ("deny", "session") else answer
        patterns = subject.patterns()
        if self.store is None or not patterns:
            self._audit("allow-once" if effect == "allow" else "deny-once", subject, None)
            return
        for pattern in patterns:
            self.store.add(
                subject.family, pattern, effect, scope,  # type: ignore[arg-type]
                project=str(self.project), session_id=self.session_id, source="answer",
            )

    # ---- classification ----------------------------------------------------------------

    def subject(self, tool: Tool, args: dict[str, Any]) -> Subject:
        effect: ToolEffect = effect_of(tool)
        command = effect.command(args) if effect.executes else None
        if command is not None:
            return Subject("shell", tool.name, line=commands.parse(command),
                           escalated=args.get("sandbox_permissions") == "require_escalated")
        if effect.writes and (effect.path_args or effect.patch_args):
            paths = effect.paths(args)
            resolved = [self._resolve(p) for p in paths]
            inside = all(r.is_relative_to(self.workspace) for r in resolved)
            why = next((r for p in paths
                        if (r := protected.reason(p, self.workspace, self.user_dirs))), "")
            return Subject("write", tool.name, paths=tuple(self._show(r) for r in resolved),
                           inside=inside, protected=why)
        return Subject("tool", tool.name)

    def _resolve(self, raw: str) -> Path:
        path = Path(os.path.expanduser(raw))
        return (path if path.is_absolute() else self.workspace / path).resolve()

    def _show(self, path: Path) -> str:
        return path.relative_to(self.project).as_posix() if path.is_relative_to(self.project) \
            else str(path)

    # ---- decisions ---------------------------------------------------------------------

    def _by_mode(self, s: Subject) -> Decision:
        if self.mode == "read-only":
            if s.kind == "shell" and s.line is not None and commands.is_read_only(s.line):
                return ALLOW
            return Decision.deny(f"read-only mode: {s.tool} is not allowed (only reading, and "
                                 "shell commands on the read-only list); do the task without it")
        if self.mode == "full-auto":
            if s.escalated:
                return Decision("ask", "the model asked to run it outside the sandbox")
            if s.kind != "shell" or self.sandbox != "unavailable":
                return ALLOW
            return Decision("ask", "full-auto mode, but no sandbox is available on this machine")
        if self.mode == "auto-edit" and s.kind == "write" and s.inside and s.paths:
            return ALLOW
        return ASK

    def _match(self, s: Subject, effect: str) -> Grant | Rule | None:
        candidates: list[Grant | Rule] = [r for r in self.rules if r.effect == effect
                                          and r.tool in s.names]
        if self.store is not None:
            live = self.store.live(s.names, project=str(self.project), session_id=self.session_id)
            candidates += [g for g in live if g.effect == effect]
        if not candidates:
            return None
        if effect == "deny":
            return next((c for c in candidates if self._hits_any(s, c.pattern)), None)
        return self._covering(s, candidates)

    def _hits_any(self, s: Subject, pattern: str) -> bool:
        """A deny applies when it matches any part of the call."""
        if not pattern:
            return True
        if s.kind == "shell" and s.line is not None:
            return commands.denies(pattern, s.line)
        return any(self._path_in(p, pattern) for p in s.paths)

    def _covering(self, s: Subject, candidates: list[Grant | Rule]) -> Grant | Rule | None:
        """An allow applies when grants cover every part of the call; returns the first."""
        whole = next((c for c in candidates if not c.pattern), None)
        if whole is not None:
            return whole
        if s.kind == "shell" and s.line is not None:
            # every command granted or read-only on its own (`npm test 2>&1 | tail -5`)
            if not commands.approved(s.line, [c.pattern for c in candidates]):
                return None
            return next((c for c in candidates
                         if any(commands.covers(c.pattern, cmd) for cmd in s.line.commands)),
                        candidates[0])
        if s.kind == "write" and s.paths:
            parts = [next((c for c in candidates if self._path_in(p, c.pattern)), None)
                     for p in s.paths]
        else:
            return None
        return parts[0] if all(p is not None for p in parts) else None

    def _path_in(self, path: str, pattern: str) -> bool:
        scope = self._show(self._resolve_pattern(pattern))
        if scope in (".", ""):
            return not os.path.isabs(path)
        return path == scope or path.startswith(scope.rstrip("/") + "/")

    def _resolve_pattern(self, pattern: str) -> Path:
        path = Path(os.path.expanduser(pattern))
        return (path if path.is_absolute() else self.project / path).resolve()

    def _headless_message(self, s: Subject, reason: str) -> str:
        if s.protected:
            return (f"{s.tool} {s.what!r} needs approval ({reason}), and this run cannot ask "
                    f"for it; it was not run. No flag or grant allows it: do the task "
                    f"without it, or the user makes this change themselves.")
        suggestion = ", ".join(f"--approve {shlex.quote(_join(s.family, p))}"
                               for p in s.patterns()) or f"--approve {s.family}"
        why = f" ({reason})" if reason else ""
        return (f"{s.tool} {s.what!r} needs approval{why}, and this run cannot ask for it; it "
                f"was not run. Do the task without it, or the user can allow it with "
                f"{suggestion} or --approval-mode.")

    def _audit(self, action: str, s: Subject, rule: Grant | Rule | None) -> None:
        if self.store is None:
            return
        scope = getattr(rule, "scope", getattr(rule, "source", "")) if rule is not None else ""
        self.store.audit(action, s.tool, s.what, scope, grant_id=getattr(rule, "id", None) or None,
                         project=str(self.project), session_id=self.session_id)


def _join(tool: str, pattern: str) -> str:
    return f"{tool}:{pattern}" if pattern else tool


def _describe(rule: Grant | Rule) -> str:
    origin = f"#{rule.id}" if getattr(rule, "id", 0) else f"from {getattr(rule, 'source', '')}"
    return f"{rule.label!r} ({origin})"
