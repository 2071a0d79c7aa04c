"""Build a :class:`SkillRuntime` from settings: sources, enable state, permissions, limits."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aiagent.config import paths
from aiagent.config.settings import ConfigError, Settings
from aiagent.skills.config import SkillConfigError, disabled_names, name_list
from aiagent.skills.host import LLM, HostServices
from aiagent.skills.loader import agent_md_skills, default_sources, discover, looks_like_path
from aiagent.skills.permissions import (
    Approver,
    GrantStore,
    Limits,
    PermissionGate,
    deny_all,
    open_grant_store,
)
from aiagent.skills.runtime import SkillRuntime
from aiagent.skills.state import EnableState, apply_state, state_paths


def skills_table(settings: Settings) -> dict[str, Any]:
    table = settings.get("skills", {})
    return dict(table) if isinstance(table, dict) else {}


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
    discovery = discover(default_sources(workspace, root, config_dir, home, table, inline))
    names = [r for r in requested if not looks_like_path(r)]
    names += [n for n, e in discovery.skills.items() if e.source == "inline"]
    user_file, project_file = state_paths(root, config_dir)
    try:
        disabled = disabled_names(table, discovery.skills)
        limits = Limits.from_settings(table)
    except SkillConfigError as exc:
        raise ConfigError(str(exc)) from None
    disabled = apply_state(disabled, EnableState.read(user_file), EnableState.read(project_file))
    pre = frozenset([*name_list(table.get("auto_approve")), *name_list(table.get("approve")), *approve])
    gate = PermissionGate(store or open_grant_store(settings.env), str(root), pre, approver)
    services = HostServices(root=root, limits=limits, env=dict(settings.env), llm=llm,
                            skill_config=dict(table.get("config") or {}))
    return SkillRuntime(
        discovery, services, gate, disabled=disabled, mode=mode, explicit=names,
        index_budget=int(table.get("index_budget", 6000)),
        process_sandbox=str(table.get("process_sandbox", "auto")), report=report,
    )
