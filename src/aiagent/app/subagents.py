"""Subagents in the one set-up path: the ``task`` tool wired to its children, and a child
built from its parent's pieces.

A child gets: the parent's tools narrowed to its profile (never one the parent is not
offered; ``task`` only while ``[agent] subagent_depth`` allows), the parent's approval
policy (the same object, so the same mode, rules and saved grants; a profile may narrow the
mode, never widen it), the parent's tool-call hooks, secret masking and file view, its own
provider on the parent's provider choice (the profile's model, or the parent's), its own
conversation, and a system prompt of the base prompt, the project rules and the profile's
instructions. See :mod:`aiagent.agent.core.subagents` and docs/subagents.md.
"""

from __future__ import annotations

import copy
import logging
import os
import sqlite3
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from aiagent.agent.core.budget import child_budget
from aiagent.agent.core.conversation import Conversation
from aiagent.agent.core.loop import Agent, AgentConfig
from aiagent.agent.core.subagents.profiles import (
    Catalog,
    Profile,
    folders,
    load_catalog,
    narrow_mode,
    narrow_tools,
    resolve_model,
)
from aiagent.agent.core.subagents.runner import Subagents
from aiagent.agent.tools.base import ToolRegistry
from aiagent.agent.tools.task import TaskTool
from aiagent.app.provider import resolve_provider
from aiagent.contracts.hooks import Hooks
from aiagent.contracts.prompt import PromptFragment
from aiagent.infra.config import paths

if TYPE_CHECKING:
    from aiagent.app import Application
    from aiagent.contracts.approval import ApprovalPolicy
    from aiagent.infra.config.settings import Settings
    from aiagent.infra.store.sessions import SessionRecorder

log = logging.getLogger("aiagent.agent.subagents")


def catalog_for(settings: Settings) -> Catalog:
    """The profiles this run may use; a project's only in a trusted folder."""
    project = paths.project_root(settings.workspace)
    home = settings.env.get("HOME") or os.environ.get("HOME")
    places = folders(home=Path(home) if home else None, config_dir=paths.config_dir(settings.env),
                     project=project if settings.trusted else None)
    return load_catalog(places, untrusted=None if settings.trusted else project)


def attach(app: Application, agent: Agent, *, depth: int = 0) -> None:
    """Give ``agent`` (at ``depth``: 0 = the main agent) a working ``task`` tool, or take the
    tool away when subagents are off or too deep."""
    settings = app.settings
    offered = agent.config.tools
    if offered is not None and "task" not in offered:
        return
    if settings.agent.max_subagents <= 0 or depth >= settings.agent.subagent_depth:
        agent.remove_tool("task")
        return
    catalog = catalog_for(settings)
    for warning in catalog.warnings:
        log.warning("aiagent: agents: %s", warning)
    runner = Subagents(agent, catalog, partial(build_child, app, agent, depth + 1),
                       limit=settings.agent.max_subagents)
    agent.add_tool(TaskTool(runner.delegate, catalog.summary()), offer=False)


def build_child(app: Application, parent: Agent, depth: int, profile: Profile,
                label: str = "", title: str = "") -> tuple[Agent, list[str]]:
    """A child agent for ``profile`` made of ``parent``'s pieces; and warnings about what
    the profile asked for and did not get. Its conversation is saved as a session linked to
    the parent's (:func:`child_conversation`), when the parent's is saved."""
    settings = app.settings
    have = list(parent.config.tools) if parent.config.tools is not None else parent.tools.names()
    names, notes = narrow_tools(profile, [n for n in have if n != "task" or depth < _limit(app)])
    registry = ToolRegistry(lazy={})
    for name in names:
        tool = parent.tools.get(name)
        if tool is not None and name != "task":
            registry.register(tool)
    base = app.resolve()
    model, more = resolve_model(profile, base.name, parent.config.model)
    choice = resolve_provider(settings, provider=base.name, model=model)
    approval, mode_notes = _approval(profile, parent.approval)
    config = AgentConfig(
        model=choice.model, max_turns=parent.config.max_turns, timeout=None,
        max_tokens=parent.config.max_tokens, temperature=parent.config.temperature,
        tools=names, tool_settings=parent.config.tool_settings,
        allow_outside_workspace=parent.config.allow_outside_workspace,
        tool_protocol=parent.config.tool_protocol,
    )
    from aiagent.app import make_provider, protocol_fragments, system_prompt

    conversation, recorder = child_conversation(parent, label, title, base.name, choice.model)

    instructions = PromptFragment(f"Your role: {profile.name}", profile.prompt)
    child = Agent(
        make_provider(settings, choice), registry, config,
        system_prompt=system_prompt(settings, [*protocol_fragments(settings), instructions]),
        workspace=parent.workspace, approval=approval, redact=parent.redact,
        hooks=_child_hooks(parent, label, profile.name), conversation=conversation,
        budget=child_budget(parent, choice.model),
    )
    child.user_hooks = parent.user_hooks  # its own children fire SubagentStop too
    if recorder is not None:  # each answer is stored with the tokens it took
        recorder.usage_total = lambda: child.usage
    child.use_files(parent.files)
    if "task" in names:
        attach(app, child, depth=depth)
    return child, [*profile.warnings, *notes, *more, *mode_notes]


def child_conversation(parent: Agent, label: str, title: str, provider: str,
                       model: str) -> tuple[Conversation, SessionRecorder | None]:
    """The child's conversation: saved as a session of its own, linked to the parent's
    session (``parent_id``, ``agent`` = the label), when the parent's is saved; else kept in
    memory only. A store that fails is logged and the child runs unsaved."""
    from aiagent.infra.store.db import StoreError
    from aiagent.infra.store.sessions import SessionRecorder

    session = parent.session
    store, info = getattr(session, "store", None), getattr(session, "info", None)
    if store is None or info is None or not label:
        return Conversation(), None
    try:
        child = store.create(info.workspace, provider=provider, model=model,
                             title=f"[{label}] {title}".rstrip(), parent_id=info.id, agent=label)
    except (sqlite3.Error, StoreError) as exc:
        log.warning("aiagent: subagent %s: its conversation is not saved: %s", label, exc)
        return Conversation(), None
    recorder = SessionRecorder(store, child.id, 0, model=model)
    return Conversation(on_append=recorder), recorder


def _child_hooks(parent: Agent, label: str, name: str) -> Hooks:
    """The parent's tool-call hooks (user hooks' PreToolUse/PostToolUse among them) and, with
    user hooks, SubagentStop at the child's end; not the parent's Stop or prompt hooks."""
    hooks = Hooks(on_before_tool_call=list(parent.hooks.on_before_tool_call),
                  on_after_tool_result=list(parent.hooks.on_after_tool_result))
    if parent.user_hooks is not None:
        hooks.extend(parent.user_hooks.for_child(label or name, name))
    return hooks


def _limit(app: Application) -> int:
    return app.settings.agent.subagent_depth


def _approval(profile: Profile, policy: ApprovalPolicy) -> tuple[ApprovalPolicy, list[str]]:
    """The parent's policy, or a copy in the narrower mode the profile asks for. A policy
    wrapped by the user hooks' approval (a PreToolUse hook) is narrowed inside the wrapper."""
    from aiagent.agent.hooks.engine import HookApproval
    from aiagent.agent.permissions.policy import PermissionPolicy

    if isinstance(policy, HookApproval) and isinstance(policy.inner, PermissionPolicy):
        narrowed, notes = _approval(profile, policy.inner)
        return (policy if narrowed is policy.inner else HookApproval(narrowed, policy.hooks)), notes
    if not isinstance(policy, PermissionPolicy):
        return policy, []
    mode, notes = narrow_mode(profile, policy.mode)
    if mode is None:
        return policy, notes
    narrowed = copy.copy(policy)  # the same rules and saved grants, in the narrower mode
    narrowed.mode = mode  # type: ignore[assignment]  # checked against MODES by narrow_mode
    return narrowed, notes
