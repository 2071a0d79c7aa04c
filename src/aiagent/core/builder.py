"""Build an :class:`Agent` from settings: provider, tools, system prompt, policy.

Every front-end (headless, TUI, web) calls :func:`build_agent`, so they all behave alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from aiagent.config import paths
from aiagent.config.settings import ConfigError, Settings
from aiagent.contracts.approval import ApprovalPolicy
from aiagent.contracts.hooks import Hooks
from aiagent.contracts.prompt import PromptFragment
from aiagent.contracts.providers import AuthError
from aiagent.core.loop import Agent, AgentConfig
from aiagent.core.prompt import build_system_prompt, read_rules, rule_files
from aiagent.core.redact import SecretMasker
from aiagent.core.tokens import context_window
from aiagent.providers import create_provider
from aiagent.tools.base import ToolRegistry
from aiagent.tools.profiles import expand_groups, profile_tools

KEY_REQUIRED_HOSTS = {"anthropic": "api.anthropic.com", "openai": "api.openai.com"}


def expand_tool_names(names: Iterable[str], registry: ToolRegistry, source: str) -> list[str]:
    """Expand group names (``read``, ``search``, ...) and check every name is known."""
    expanded = expand_groups(list(names))
    unknown = [n for n in expanded if n not in registry]
    if unknown:
        known = ", ".join(registry.names())
        raise ConfigError(f"{source}: unknown tool {unknown[0]!r} (known: {known})")
    return list(dict.fromkeys(expanded))


def offered_tools(settings: Settings, registry: ToolRegistry) -> list[str]:
    agent = settings.agent
    if agent.tools is not None:
        return expand_tool_names(agent.tools, registry, "tools")
    try:
        names = profile_tools(agent.tool_profile)
    except ValueError as exc:
        raise ConfigError(f"agent.tool_profile: {exc}") from None
    return [n for n in names if n in registry]


def system_prompt(settings: Settings, fragments: Iterable[PromptFragment] = ()) -> str:
    workspace = settings.workspace
    files = rule_files(workspace, paths.project_root(workspace), paths.config_dir(settings.env))
    base = settings.agent.system_prompt
    return build_system_prompt(workspace, rules=read_rules(files), fragments=fragments, base=base,
                               protocol=settings.agent.tool_protocol)


def protocol_fragments(settings: Settings) -> list[PromptFragment]:
    """How to call tools, when the model has no native tool calls (``tool_protocol = "tags"``)."""
    if settings.agent.tool_protocol != "tags":
        return []
    from importlib import resources

    text = resources.files("aiagent.core").joinpath("prompts/shell_tags.md").read_text("utf-8")
    return [PromptFragment("Running commands", text.strip())]


def check_key(settings: Settings) -> None:
    name = settings.provider_name
    config = settings.provider_config()
    host = KEY_REQUIRED_HOSTS.get(name)
    if not config.api_key and host and host in config.base_url:
        raise AuthError(
            f"no API key for {name}: set {config.api_key_env or 'the key'} "
            f"(or choose another provider with --provider)"
        )


def tool_settings(settings: Settings) -> dict[str, Any]:
    """The ``[tools]`` table, plus ``sandbox``: whether and how shell commands are sandboxed."""
    from aiagent import sandbox

    table = dict(settings.get("tools", {}))
    table["sandbox"] = sandbox.tool_settings(settings.get("sandbox", {}), settings.agent.approval_mode)
    return table


def build_agent(
    settings: Settings,
    *,
    approval: ApprovalPolicy,
    registry: ToolRegistry | None = None,
    hooks: Hooks | None = None,
    workspace: Path | None = None,
    skills_mode: str = "headless",
    **extra: Any,
) -> Agent:
    registry = registry or ToolRegistry()
    check_key(settings)
    provider_config = settings.provider_config()
    provider_config.context_window = context_window(settings.model, settings.get("context.windows") or {})
    provider = create_provider(settings.provider_name, provider_config)
    config = AgentConfig(
        model=settings.model,
        max_turns=settings.agent.max_turns,
        timeout=settings.agent.timeout or None,
        max_tokens=settings.max_tokens,
        temperature=settings.get(f"provider.{settings.provider_name}.temperature"),
        tools=offered_tools(settings, registry),
        tool_settings=tool_settings(settings),
        tool_protocol=settings.agent.tool_protocol,
    )
    agent = Agent(
        provider,
        registry,
        config,
        system_prompt=system_prompt(settings, protocol_fragments(settings)),
        workspace=workspace or settings.workspace,
        approval=approval,
        hooks=hooks,
        redact=SecretMasker.from_env(settings.env),
        **extra,
    )
    if settings.get("skills.enabled", True) is not False:
        from aiagent.skills.wiring import attach_skills

        attach_skills(
            settings, agent, registry, provider,
            lambda extra_fragments: system_prompt(
                settings, [*protocol_fragments(settings), *extra_fragments]
            ),
            mode=skills_mode,
        )
    return agent
