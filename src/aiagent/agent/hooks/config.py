"""Which user hooks are configured, where from, and which of them may run.

Hooks come from every config layer that has them (a project's ``[[hooks.EVENT]]`` add to
the user's; they do not replace them) and, with ``[hooks] read_claude_settings = true``,
from Claude Code's settings files. A project's hooks (its ``.agent/config.toml`` and its
``.claude/`` files) run only in a trusted folder; until then they are listed as ignored,
with the reason. A bad matcher or an unknown event name is a one-line :class:`ConfigError`
naming the file and the key: a hook that silently never fires is the worst outcome.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.infra.config import paths
from aiagent.infra.config.settings import ConfigError, Settings, read_toml

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart")
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
MATCHED_EVENTS = (*TOOL_EVENTS, "SessionStart", "SubagentStop")  # the matcher is ignored for the others
ALL = ("", "*")


@cache
def claude_names() -> dict[str, list[str]]:
    """Claude Code tool name -> the aiagent tools it stands for (``tool_names.toml``)."""
    text = resources.files("aiagent.agent.hooks").joinpath("tool_names.toml").read_text("utf-8")
    table: dict[str, list[str]] = tomllib.loads(text)["claude"]
    return table


def aliases_of(tool: str) -> list[str]:
    """The Claude names of aiagent tool ``tool`` (empty when it has none)."""
    return [claude for claude, ours in claude_names().items() if tool in ours]


@dataclass(frozen=True, slots=True)
class HookSpec:
    """One configured hook command."""

    event: str
    matcher: str
    command: str
    timeout: float
    origin: str  # user | project | flags | claude-user | claude-project | claude-local
    source: str  # the file it was read from
    key: str  # where in that file: "[[hooks.PreToolUse]] #1", "hooks.Stop[0].hooks[1]"
    pattern: re.Pattern[str] | None = None  # None: matches everything

    @property
    def claude(self) -> bool:
        return self.origin.startswith("claude")

    @property
    def where(self) -> str:
        return f"{self.source}: {self.key}"

    def matches(self, subject: str | None) -> bool:
        """Whether this hook fires for ``subject`` (a tool name, a session source, a
        subagent's profile name)."""
        if self.pattern is None or subject is None or self.event not in MATCHED_EVENTS:
            return True
        names = [subject, *aliases_of(subject)] if self.event in TOOL_EVENTS else [subject]
        return any(self.pattern.fullmatch(name) for name in names)


@dataclass(frozen=True, slots=True)
class Ignored:
    """A hook that is configured but will not run, and why."""

    spec: HookSpec | None
    source: str
    key: str
    why: str


@dataclass(slots=True)
class HookSet:
    active: list[HookSpec] = field(default_factory=list)
    ignored: list[Ignored] = field(default_factory=list)
    allow_skips_prompt: bool = False
    max_output_bytes: int = 65_536
    max_stop_continuations: int = 3

    def for_event(self, event: str, subject: str | None = None) -> list[HookSpec]:
        return [s for s in self.active if s.event == event and s.matches(subject)]

    def has(self, event: str) -> bool:
        return any(s.event == event for s in self.active)


def compile_matcher(matcher: str, where: str) -> re.Pattern[str] | None:
    if matcher.strip() in ALL:
        return None
    try:
        return re.compile(matcher)
    except re.error as exc:
        raise ConfigError(f"{where}: matcher {matcher!r} is not a valid regular expression: {exc}") from None


# ---- aiagent's own config files -----------------------------------------------------------


def _toml_specs(table: Mapping[str, Any], origin: str, source: str, default_timeout: float) -> list[HookSpec]:
    specs: list[HookSpec] = []
    for event in EVENTS:
        for index, entry in enumerate(table.get(event) or [], 1):
            key = f"[[hooks.{event}]] #{index}"
            matcher = str(entry.get("matcher", ""))
            specs.append(HookSpec(
                event, matcher, str(entry["command"]), float(entry.get("timeout") or default_timeout),
                origin, source, key, compile_matcher(matcher, f"{source}: {key}")))
    return specs


def _layer_specs(settings: Settings, default_timeout: float) -> list[HookSpec]:
    specs: list[HookSpec] = []
    for layer in settings.layers:
        table = layer.data.get("hooks") if layer.name != "defaults" else None
        if isinstance(table, Mapping):
            specs += _toml_specs(table, layer.name, layer.source, default_timeout)
    return specs


def _untrusted_project(settings: Settings, default_timeout: float) -> list[Ignored]:
    """The hooks of the project config that trust held back (read again to list them)."""
    if settings.trusted:
        return []
    file = paths.project_config_file(settings.workspace)
    if not file.is_file():
        return []
    table = read_toml(file).get("hooks")
    if not isinstance(table, Mapping):
        return []
    return [Ignored(s, s.source, s.key, _untrusted_why(settings))
            for s in _toml_specs(table, "project", str(file), default_timeout)]


def _untrusted_why(settings: Settings) -> str:
    root = settings.trust.root if settings.trust is not None else settings.workspace
    return f"this folder is not trusted ({root}): run `aiagent trust` or use --trust"


# ---- Claude Code's settings files ------------------------------------------------------


def claude_files(settings: Settings) -> list[tuple[str, Path]]:
    """(origin, path) of Claude Code's settings files for this folder, user's first."""
    home = Path(settings.env.get("HOME") or Path.home())
    root = paths.project_root(settings.workspace)
    return [("claude-user", home / ".claude" / "settings.json"),
            ("claude-project", root / ".claude" / "settings.json"),
            ("claude-local", root / ".claude" / "settings.local.json")]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    return data


def _claude_specs(path: Path, origin: str, default_timeout: float) -> tuple[list[HookSpec], list[Ignored]]:
    """The hooks of one Claude settings file; the entries aiagent cannot run go to ignored."""
    table = _read_json(path).get("hooks") or {}
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: hooks: expected an object of events")
    specs: list[HookSpec] = []
    ignored: list[Ignored] = []
    for event, groups in table.items():
        if not isinstance(groups, list):
            raise ConfigError(f"{path}: hooks.{event}: expected a list of matcher groups")
        for g, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise ConfigError(f"{path}: hooks.{event}[{g}]: expected {{\"matcher\", \"hooks\": [...]}}")
            matcher = str(group.get("matcher") or "")
            for h, hook in enumerate(group.get("hooks", [])):
                key = f"hooks.{event}[{g}].hooks[{h}]"
                made = _claude_hook(hook, event, matcher, origin, str(path), key, default_timeout)
                if isinstance(made, HookSpec):
                    specs.append(made)
                else:
                    ignored.append(Ignored(None, str(path), key, made))
    return specs, ignored


def _claude_hook(hook: Any, event: str, matcher: str, origin: str, source: str, key: str,
                 default_timeout: float) -> HookSpec | str:
    """The spec of one Claude hook entry, or why aiagent does not run it."""
    if not isinstance(hook, dict):
        raise ConfigError(f"{source}: {key}: expected an object")
    if event not in EVENTS:
        return f"aiagent has no {event} event (it runs {', '.join(EVENTS)})"
    kind = hook.get("type", "command")
    if kind != "command":
        return f"type {kind!r}: aiagent runs only \"command\" hooks"
    command = hook.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{source}: {key}.command: expected a non-empty string")
    timeout = hook.get("timeout", default_timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError(f"{source}: {key}.timeout: expected a positive number of seconds")
    where = f"{source}: {key}"
    return HookSpec(event, matcher, command, float(timeout), origin, source, key,
                    compile_matcher(matcher, where))


def _claude_sets(settings: Settings, default_timeout: float) -> tuple[list[HookSpec], list[Ignored]]:
    opted_in = settings.hooks.read_claude_settings
    specs: list[HookSpec] = []
    ignored: list[Ignored] = []
    for origin, path in claude_files(settings):
        if not path.is_file():
            continue
        if not opted_in:
            if _has_hooks(path):
                ignored.append(Ignored(None, str(path), "hooks", "Claude Code settings are read only with [hooks] "
                                       "read_claude_settings = true in your config"))
            continue
        found, skipped = _claude_specs(path, origin, default_timeout)
        ignored += skipped
        if origin != "claude-user" and not settings.trusted:
            ignored += [Ignored(s, s.source, s.key, _untrusted_why(settings)) for s in found]
        else:
            specs += found
    return specs, ignored


def _has_hooks(path: Path) -> bool:
    """Whether a Claude settings file (not opted in: never an error) configures hooks."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("hooks"))


def load(settings: Settings) -> HookSet:
    """Every configured hook of this folder: those that run and those that do not (why).
    Raises a one-line ConfigError for a bad matcher or a malformed Claude settings file."""
    table = settings.hooks
    active = _layer_specs(settings, table.timeout)
    ignored = _untrusted_project(settings, table.timeout)
    claude, skipped = _claude_sets(settings, table.timeout)
    return HookSet(active + claude, ignored + skipped, table.allow_skips_prompt, table.max_output_bytes,
                   table.max_stop_continuations)
