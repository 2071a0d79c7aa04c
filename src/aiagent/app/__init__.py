"""The one set-up path: settings → provider, session, tools, skills, approval policy → Agent.

Every front-end starts here and none re-assembles an agent: the headless run, the TUI,
``aiagent sessions compact`` (and next the web and ACP servers)::

    app = Application(settings, interactive=False, approve=("shell:npm test",))
    started = app.start(SessionRequest(continue_latest=True), title=prompt)
    async for event in started.agent.run(prompt): ...
    started.close()

A front-end that must stay up when a step fails (the TUI without an API key) calls the
steps itself, in this order: :meth:`Application.session`, :meth:`Application.policy`,
:meth:`Application.agent`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiagent.app.provider import ProviderChoice, resolve_provider
from aiagent.contracts.hooks import Hooks
from aiagent.contracts.providers import AuthError
from aiagent.infra import sandbox
from aiagent.infra.config import paths
from aiagent.infra.config.model import as_table
from aiagent.infra.config.settings import ConfigError, Settings
from aiagent.infra.providers import create_provider

if TYPE_CHECKING:  # (the agent's modules load when an agent is built: start-up)
    from aiagent.agent.core.loop import Agent
    from aiagent.agent.core.session import AgentSession, SessionRequest
    from aiagent.agent.permissions.policy import PermissionPolicy
    from aiagent.agent.skills.runtime import SkillRuntime
    from aiagent.agent.tools.base import ToolRegistry
    from aiagent.agent.tools.mcp.manager import McpManager
    from aiagent.contracts.hooks import Hooks
    from aiagent.contracts.prompt import PromptFragment
    from aiagent.contracts.providers import Provider

KEY_REQUIRED_HOSTS = {"anthropic": "api.anthropic.com", "openai": "api.openai.com"}


@dataclass(slots=True)
class Started:
    """What :meth:`Application.start` returns: the agent and what it was built on."""

    agent: Agent
    session: AgentSession
    policy: PermissionPolicy

    def close(self) -> None:
        self.session.close()

    async def aclose(self) -> None:
        """The agent released (its errors ignored: this is a shutdown), then the session closed."""
        with contextlib.suppress(Exception):
            await self.agent.aclose()
        self.close()


@dataclass(slots=True)
class OneShot:
    """``await one_shot(prompt, {"system": …})`` → the model's text; ``aclose()`` after."""

    complete: Callable[[str, Mapping[str, Any]], Awaitable[str]]
    provider: Provider
    model: str

    async def __call__(self, prompt: str, options: Mapping[str, Any] | None = None) -> str:
        return await self.complete(prompt, options or {})

    async def aclose(self) -> None:
        await self.provider.aclose()


class Application:
    """Turns settings into a ready agent; one per front-end run."""

    def __init__(self, settings: Settings, *, interactive: bool,
                 approve: Iterable[str] = (), choice: ProviderChoice | None = None) -> None:
        self.settings = settings
        self.interactive = interactive
        self.approve = tuple(approve)
        self.mcp: McpManager | None = None  # the MCP servers of the last agent built
        self._choice = choice

    def resolve(self) -> ProviderChoice:
        """The provider and model of this run, decided once (see :mod:`aiagent.app.provider`).
        Raises AuthError (exit 3) when the user named none and none is available."""
        if self._choice is None:
            self._choice = resolve_provider(self.settings)
        return self._choice

    def use_provider(self, name: str, model: str | None = None) -> tuple[ProviderChoice, Provider]:
        """Another provider (and model) for the rest of this session (``/provider``): the
        choice and the provider, taken only when the provider can be built."""
        choice = resolve_provider(self.settings, provider=name, model=model)
        provider = make_provider(self.settings, choice)
        self._choice = choice
        return choice, provider

    def choice_or_named(self) -> ProviderChoice:
        """The run's choice, or when none is available the provider the settings name (a
        session is still recorded, the first-run screen still explains what to set)."""
        from aiagent.app.provider import named

        try:
            return self.resolve()
        except AuthError:
            return named(self.settings)

    @classmethod
    def from_settings(cls, settings: Settings, options: dict[str, Any] | None = None, *,
                      interactive: bool = False) -> Application:
        """From settings and the command-line options that are not settings (``--approve``)."""
        return cls(settings, interactive=interactive,
                   approve=tuple((options or {}).get("approve") or ()))

    def start(self, request: SessionRequest, *, title: str = "") -> Started:
        """Session, policy and agent in one step. Raises ConfigError or ProviderError (a
        session opened before the failure is closed, and deleted if still empty)."""
        allowed = self.pre_approved()
        session = self.session(request, title=title)
        try:
            policy = self.policy(session, whitelist=allowed)
            agent = self.agent(session, policy)
        except BaseException:
            session.close(discard_if_empty=True)
            raise
        return Started(agent, session, policy)

    def pre_approved(self) -> list[str] | None:
        """A headless run's ``--tools`` whitelist, expanded: those tools need no approval."""
        whitelist = self.settings.agent.tools
        if self.interactive or whitelist is None:
            return None
        from aiagent.agent.tools.base import ToolRegistry

        return expand_tool_names(whitelist, ToolRegistry(), "--tools")

    def session(self, request: SessionRequest, *, title: str = "") -> AgentSession:
        """A new stored session, the latest in this folder, or one by id."""
        from aiagent.agent.core.session import open_session

        choice = self.choice_or_named()
        return open_session(self.settings, request, provider=choice.name, model=choice.model,
                            title=title)

    def policy(self, session: AgentSession | None, *,
               whitelist: list[str] | None = None) -> PermissionPolicy:
        return make_policy(self.settings, session, interactive=self.interactive,
                           approve=self.approve, whitelist=whitelist)

    def provider(self) -> Provider:
        """The chosen provider, ready to stream; AuthError without a needed key."""
        return make_provider(self.settings, self.resolve())

    def one_shot(self, *, max_tokens: int | None = None) -> OneShot:
        """One-shot completions (prompt, options) → text on the chosen provider, for the
        pipelines' model parts (log incidents, workflows, the wiki, the LLM audit)."""
        from aiagent.agent.skills.wiring import provider_llm

        choice = self.resolve()
        limit = self.settings.provider.entry(choice.name).max_tokens
        provider = self.provider()
        llm = provider_llm(provider, choice.model,
                           max_tokens=min(limit, max_tokens) if max_tokens else limit)
        return OneShot(llm, provider, choice.model)

    def agent(self, session: AgentSession, policy: PermissionPolicy) -> Agent:
        """The agent on ``session``, with tools, skills and sandbox settings."""
        from aiagent.agent.tools.base import ToolRegistry

        agent = _new_agent(self.settings, self.resolve(), self.provider(), ToolRegistry(), policy)
        agent.use_session(session)
        if self.settings.skills.on:
            self._add_skills(agent)
        self._add_mcp(agent)
        self._add_user_hooks(agent, session)
        from aiagent.app.subagents import attach as attach_subagents

        attach_subagents(self, agent)  # the task tool and its children (they see the hooks above)
        return agent

    def _add_user_hooks(self, agent: Agent, session: AgentSession) -> None:
        """The user's ``[[hooks.EVENT]]`` commands (docs/hooks.md), fired at the agent's events."""
        from aiagent.agent.hooks import attach

        fired = attach(agent, self.settings, session_id=session.info.id)
        if fired is not None:  # the session stores the prompt as sent (hook context included)
            fired.saved = session.recorder.amend_prompt

    def skill_runtime(self, **kwargs: Any) -> SkillRuntime:
        """A skill runtime on its own (listing skills, running a workflow): no agent."""
        from aiagent.agent.skills.factory import create_runtime

        kwargs.setdefault("mode", "interactive" if self.interactive else "headless")
        return create_runtime(self.settings, **kwargs)

    def _add_skills(self, agent: Agent) -> None:
        from aiagent.agent.skills.wiring import attach, provider_llm, warn

        runtime = self.skill_runtime(llm=provider_llm(agent.provider, self.resolve().model),
                                     report=warn)
        attach(runtime, agent, self.settings.agent.tools)

    def _add_mcp(self, agent: Agent) -> None:
        """MCP servers' tools join the agent's once the conversation starts."""
        from aiagent.agent.skills.state import mcp_disabled
        from aiagent.agent.skills.wiring import warn
        from aiagent.agent.tools.mcp.manager import attach

        off = mcp_disabled(paths.project_root(self.settings.workspace),
                           paths.config_dir(self.settings.env),
                           trusted=self.settings.trusted)
        self.mcp = attach(agent, self.settings, whitelist=self.settings.agent.tools, report=warn,
                          disabled=off)


def _new_agent(settings: Settings, choice: ProviderChoice, provider: Provider,
               registry: ToolRegistry, policy: PermissionPolicy) -> Agent:
    from aiagent.agent.core.budget import run_budget
    from aiagent.agent.core.loop import Agent, AgentConfig
    from aiagent.agent.core.redact import SecretMasker

    entry = settings.provider.entry(choice.name)
    config = AgentConfig(
        model=choice.model,
        max_turns=settings.agent.max_turns,
        timeout=settings.agent.timeout or None,
        max_tokens=entry.max_tokens,
        temperature=entry.temperature,
        tools=offered_tools(settings, registry),
        tool_settings=tool_settings(settings),
        tool_protocol=settings.agent.tool_protocol,
    )
    prompt = PromptParts(settings, protocol_fragments(settings), repo_map_prompt(settings))
    agent = Agent(
        provider, registry, config,
        system_prompt=prompt.build(()),
        build_prompt=prompt.build,
        workspace=settings.workspace,
        approval=policy,
        redact=SecretMasker.from_env(settings.env),
        budget=run_budget(settings.agent.max_cost, settings.agent.max_tokens, choice.model),
    )
    if prompt.repo_map is not None:
        agent.add_hooks(prompt.repo_map_hooks(agent))
    return agent


class PromptParts:
    """The system prompt's parts: the protocol's fragments, the repository map (re-centred
    on the files each user message names) and the fragments of active skills."""

    def __init__(self, settings: Settings, base: list[PromptFragment], repo_map: Any) -> None:
        self.settings, self.base, self.repo_map = settings, base, repo_map
        self.extra: list[PromptFragment] = []

    def build(self, extra: Iterable[PromptFragment]) -> str:
        self.extra = list(extra)
        mapped = self.repo_map.fragments if self.repo_map is not None else []
        return system_prompt(self.settings, [*self.base, *mapped, *self.extra])

    def repo_map_hooks(self, agent: Agent) -> Hooks:

        async def refresh(text: str) -> None:
            if await self.repo_map.refresh_async(text):  # cancelling stops its walk
                agent.use_prompt_fragments(self.extra)

        async def start(messages: list[Any]) -> None:
            await refresh("\n".join(m.text for m in messages if m.role == "user"))

        return Hooks(on_conversation_start=[start], on_user_turn=[refresh])


def repo_map_prompt(settings: Settings) -> Any:
    """The repository map of ``[tools.repo_map]``, or None when it is off."""
    table = settings.tools.repo_map
    if table.mode == "off":
        return None
    from aiagent.agent.tools.repomap import RepoMapPrompt

    return RepoMapPrompt(settings.workspace, mode=table.mode, tokens=table.tokens,
                         min_files=table.min_files, env=settings.env,
                         max_files=table.max_files, max_seconds=table.max_seconds)


# ---- the pieces ------------------------------------------------------------------------


def make_provider(settings: Settings, choice: ProviderChoice) -> Provider:
    """The provider of ``choice``; AuthError without a needed key."""
    from aiagent.agent.core.tokens import context_window

    name = choice.name
    config = settings.provider_config(name)
    config.context_window = context_window(choice.model, dict(settings.context.windows))
    host = KEY_REQUIRED_HOSTS.get(name)
    if not config.api_key and host and host in config.base_url:
        raise AuthError(
            f"no API key for {name}: set {config.api_key_env or 'the key'} "
            f"(or choose another provider with --provider)"
        )
    return create_provider(name, config)


def expand_tool_names(names: Iterable[str], registry: ToolRegistry, source: str) -> list[str]:
    """Expand group names (``read``, ``search``, ...) and check every name is known."""
    from aiagent.agent.tools.profiles import expand_groups

    expanded = expand_groups(list(names))
    unknown = [n for n in expanded if n not in registry]
    if unknown:
        known = ", ".join(registry.names())
        raise ConfigError(f"{source}: unknown tool {unknown[0]!r} (known: {known})")
    return list(dict.fromkeys(expanded))


def offered_tools(settings: Settings, registry: ToolRegistry) -> list[str]:
    """The tools the model is offered: the whitelist or the profile, less those this
    platform cannot run (the Apple tools off macOS)."""
    from aiagent.agent.tools.profiles import offerable, profile_tools

    agent = settings.agent
    if agent.tools is not None:
        return offerable(expand_tool_names(agent.tools, registry, "tools"))
    try:
        names = profile_tools(agent.tool_profile)
    except ValueError as exc:
        raise ConfigError(f"agent.tool_profile: {exc}") from None
    return offerable(n for n in names if n in registry)


def system_prompt(settings: Settings, fragments: Iterable[PromptFragment] = ()) -> str:
    from aiagent.agent.core.prompt import build_system_prompt, read_rules, rule_files

    workspace = settings.workspace
    files = rule_files(workspace, paths.project_root(workspace), paths.config_dir(settings.env))
    base = settings.agent.system_prompt
    return build_system_prompt(workspace, rules=read_rules(files), fragments=fragments, base=base,
                               protocol=settings.agent.tool_protocol)


def protocol_fragments(settings: Settings) -> list[PromptFragment]:
    """How to call tools with the configured protocol (the ``tags`` one explains ``<shell>``)."""
    from aiagent.agent.core.protocols import make_protocol

    return make_protocol(settings.agent.tool_protocol, {}).prompt_fragments()


def tool_settings(settings: Settings) -> dict[str, Any]:
    """The ``[tools]`` table, plus ``sandbox``: whether and how shell commands are sandboxed."""

    table = as_table(settings.tools)
    table["sandbox"] = sandbox.tool_settings(settings.sandbox, settings.agent.approval_mode)
    # language servers that run the project's own code start only in a trusted folder
    table["lsp"] = {**table["lsp"], "trusted": bool(settings.trust and settings.trust.trusted)}
    return table


def make_policy(
    settings: Settings,
    session: AgentSession | None,
    *,
    interactive: bool,
    approve: Iterable[str] = (),
    whitelist: list[str] | None = None,
) -> PermissionPolicy:
    """The approval policy for this run: mode, saved grants, ``[permissions]`` rules,
    ``--approve`` and (headless) the ``--tools`` whitelist as pre-approvals."""
    from aiagent.agent.permissions.policy import PermissionPolicy, Rule, parse_rule

    mode = settings.agent.approval_mode
    perms = settings.permissions
    try:
        rules: list[Rule] = [parse_rule(t, "allow", "[permissions] allow") for t in perms.allow]
        rules += [parse_rule(t, "deny", "[permissions] deny") for t in perms.deny]
        rules += [parse_rule(t, "allow", "--approve") for t in approve]
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    rules += [Rule(name, "", "allow", "--tools") for name in whitelist or []]
    return PermissionPolicy(
        _mode(mode),
        session.approvals if session is not None else None,
        workspace=settings.workspace,
        project=paths.project_root(settings.workspace),
        session_id=session.info.id if session is not None else "",
        rules=rules,
        interactive=interactive,
        sandbox=sandbox.state(settings.sandbox) if mode == "full-auto"  # type: ignore[arg-type]
        else "unavailable",
    )


def _mode(value: str) -> Any:
    from aiagent.agent.permissions.policy import MODES

    for mode in MODES:
        if mode == value:
            return mode
    raise ConfigError(f"agent.approval_mode: unknown mode {value!r} (known: {', '.join(MODES)})")
