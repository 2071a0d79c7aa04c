"""Build a :class:`SkillRuntime` from settings: sources, enable state, permissions, limits."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aiagent.agent.skills.config import SkillConfigError, disabled_names, name_list, skills_table
from aiagent.agent.skills.host import LLM, HostServices
from aiagent.agent.skills.loader import (
    Admit,
    agent_md_skills,
    default_sources,
    discover,
    looks_like_path,
)
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.permissions import (
    Approver,
    GrantStore,
    Limits,
    PermissionGate,
    deny_all,
    open_grant_store,
)
from aiagent.agent.skills.runtime import SkillRuntime
from aiagent.agent.skills.state import disabled_by_state
from aiagent.infra.config import paths
from aiagent.infra.config.settings import ConfigError, Settings
from aiagent.infra.config.trust import decide


def _decide(settings: Settings, root: Path) -> Any:

    user = next((layer.data for layer in settings.layers if layer.name == "user"), {})
    return decide(root, settings.env, user)


def needs_trust(m: Manifest) -> str | None:
    """What in ``m`` would run or widen permissions (so waits for trust), or None."""
    if m.implementation is not None:
        return m.implementation.backend
    if m.security_rules is not None and m.security_rules.overrides_file:
        return "finding overrides"
    return None


def trust_gate(trust: Any, root: Path, named: Iterable[str], workspace: Path) -> Admit:
    """Admit every skill except those with code that came with the untrusted project
    (``.agent/skills`` and friends, or folders AGENT.md points to inside it). A skill
    folder the user named on the command line or in the user config is admitted."""
    project = Path(os.path.realpath(root))
    chosen = {os.path.realpath(workspace / Path(r).expanduser()) for r in named if looks_like_path(r)}

    def admit(m: Manifest, kind: str) -> bool:
        what = needs_trust(m)
        folder = os.path.realpath(m.root)
        if what is None or kind not in ("project", "inline") or folder in chosen:
            return True
        if kind == "inline" and not Path(folder).is_relative_to(project):
            return True
        if f"{m.name} ({what})" not in trust.skipped:
            trust.skipped.append(f"{m.name} ({what})")
        return False

    return admit


def held_back(settings: Settings) -> list[str]:
    """What the untrusted folder of ``settings`` holds back: its skills with code
    ("name (backend)") and the project config keys ignored. Empty when trusted."""
    trust = settings.trust if settings.trust is not None else _decide(settings, paths.project_root(settings.workspace))
    if trust.trusted:
        return []
    table = skills_table(settings)
    root = paths.project_root(settings.workspace)
    home = Path(settings.env.get("HOME") or Path.home())
    sources = [s for s in default_sources(settings.workspace, root, paths.config_dir(settings.env), home, table)
               if s.kind in ("project", "inline")]
    discover(sources, trust_gate(trust, root, name_list(table.get("explicit")), settings.workspace))
    return [*trust.skipped, *trust.ignored_keys]


def create_runtime(
    settings: Settings,
    *,
    mode: str = "headless",
    explicit: Iterable[str] = (),
    approve: Iterable[str] = (),
    approver: Approver = deny_all,
    llm: LLM | None = None,
    store: GrantStore | None = None,
    report: Callable[[str], None] | None = None,
) -> SkillRuntime:
    """Discover skills and prepare (not yet activate) them. Raises ConfigError on bad
    ``[skills]`` settings."""
    table = skills_table(settings)
    workspace = settings.workspace
    root = paths.project_root(workspace)
    home = Path(settings.env.get("HOME") or Path.home())
    requested = [*name_list(table.get("explicit")), *explicit, *agent_md_skills(root)]
    inline = [(workspace / Path(r).expanduser()).resolve() for r in requested if looks_like_path(r)]
    config_dir = paths.config_dir(settings.env)
    trust = settings.trust if settings.trust is not None else _decide(settings, root)
    named = [*name_list(table.get("explicit")), *explicit]  # by the user: flags, user config
    admit = None if trust.trusted else trust_gate(trust, root, named, workspace)
    discovery = discover(default_sources(workspace, root, config_dir, home, table, inline), admit)
    names = [r for r in requested if not looks_like_path(r)]
    names += [n for n, e in discovery.skills.items() if e.source == "inline"]
    try:
        disabled = disabled_names(table, discovery.skills)
        limits = Limits.from_settings(table)
    except SkillConfigError as exc:
        raise ConfigError(str(exc)) from None
    disabled = disabled_by_state(disabled, root, config_dir, trusted=trust.trusted)
    pre = frozenset([*name_list(table.get("auto_approve")), *name_list(table.get("approve")), *approve])
    gate = PermissionGate(store or open_grant_store(settings.env), str(root), pre, approver)
    if report is not None and mode != "interactive":  # the UI asked at start-up (ui/tui/trust.py)
        trust.report_once(report)
    services = HostServices(root=root, limits=limits, env=dict(settings.env), llm=llm,
                            skill_config=dict(table.get("config") or {}))
    return SkillRuntime(
        discovery, services, gate, disabled=disabled, mode=mode, explicit=names,
        index_budget=int(table.get("index_budget", 6000)),
        process_sandbox=str(table.get("process_sandbox", "auto")), report=report,
    )
