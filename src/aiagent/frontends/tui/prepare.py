"""Building what the UI drives: settings, then the agent, the permission policy and the
session store (all from :mod:`aiagent.app`), and checkpoints.

:func:`load_settings` and :func:`warm_imports` run in a thread while the input line is
already on screen; :func:`build_parts` then assembles the objects on the event loop
(SQLite connections belong to the thread that opens them).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.agent.core.checkpoints import Checkpoints
from aiagent.agent.core.session import SessionRequest
from aiagent.app import Application
from aiagent.frontends.tui.session import SessionLink
from aiagent.infra.config import paths
from aiagent.infra.config.flags import flags_layer
from aiagent.infra.config.settings import Settings

if TYPE_CHECKING:
    from aiagent.agent.core.checkpoints import Checkpoints
    from aiagent.agent.core.loop import Agent
    from aiagent.app import Application
    from aiagent.frontends.tui.session import SessionLink

HEAVY_MODULES = (
    "aiagent.app", "httpx", "aiagent.agent.core.session", "aiagent.infra.store.sessions",
    "aiagent.infra.store.approvals", "aiagent.agent.core.checkpoints", "rich.markdown", "rich.live",
    "rich.panel", "rich.syntax", "aiagent.frontends.tui.view",
)


@dataclass
class Parts:
    settings: Settings
    agent: Agent | None
    policy: Any
    link: SessionLink
    checkpoints: Checkpoints | None
    problems: list[str] = field(default_factory=list)
    missing_key: bool = False  # no agent because the provider has no API key
    app: Application | None = None  # what built them (new providers come from it too)


def load_settings(cwd: Path, options: dict[str, Any], env: dict[str, str]) -> Settings:

    return Settings.load(cwd, flags_layer(options), env)


def warm_imports() -> None:
    """Import what the first turn needs, so it starts without a pause (the chosen
    provider's module is imported when the agent is built)."""
    for name in HEAVY_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001,S112 - warming is best effort
            continue


def session_request(options: dict[str, Any]) -> Any:

    resume = options.get("resume")
    return SessionRequest(bool(options.get("continue_session")),
                          resume if resume and resume != "?" else None)


def build_parts(settings: Settings, options: dict[str, Any], env: dict[str, str]) -> Parts:
    """Session, policy and agent, through :class:`aiagent.app.Application` step by step. A
    problem that leaves no agent is reported, not raised, so the UI stays up (the user can
    switch provider, or read the message and quit)."""

    app = Application.from_settings(settings, options, interactive=True)
    problems: list[str] = []
    link = SessionLink(app)
    try:
        opened = link.open(session_request(options))
    except Exception as exc:  # noqa: BLE001 - e.g. no such session: start a new one
        problems.append(str(exc))
        from aiagent.agent.core.session import SessionRequest

        opened = link.open(SessionRequest())
    policy = app.policy(opened)
    agent, missing_key = None, False
    try:
        from aiagent.contracts.providers import AuthError

        try:
            if note := app.resolve().note:
                problems.append(note)
        except AuthError:
            pass  # nothing available: said below, with the first-run screen
        agent = app.agent(opened, policy)
    except Exception as exc:  # noqa: BLE001 - shown; the UI stays up
        from aiagent.contracts.providers import AuthError

        missing_key = isinstance(exc, AuthError)
        problems.append(str(exc))
    problems += opened.notes
    return Parts(settings, agent, policy, link, _checkpoints(settings, paths.data_dir(env)),
                 problems, missing_key, app)


def _checkpoints(settings: Settings, data_dir: Path) -> Checkpoints | None:

    workspace = settings.workspace.resolve()
    if not Checkpoints.available() or workspace in (Path.home().resolve(), Path("/")):
        return None  # no git, or a folder too broad to snapshot
    return Checkpoints.for_workspace(settings.workspace, data_dir)
