"""ACP session modes = our approval modes (``read-only``, ``prompt``, ``auto-edit``,
``full-auto``; names and descriptions in ``modes.toml``).

Switching a session's mode (``session/set_mode``) sets its approval policy's mode, as the
TUI's ``/approval-mode`` does; nothing else changes. In particular the sandbox a session
started with stays as it was: a session that did not start in full-auto keeps asking
before commands in full-auto when no sandbox was set up for it (the policy's own rule).
An unknown mode is a JSON-RPC error and the session is left unchanged.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

from acp import RequestError, schema

from aiagent.agent.permissions.policy import MODES


@cache
def _table() -> dict[str, dict[str, str]]:
    text = resources.files("aiagent.frontends.acp").joinpath("modes.toml").read_text("utf-8")
    return tomllib.loads(text)


def mode_ids() -> tuple[str, ...]:

    return tuple(m for m in _table() if m in MODES)


def state(policy: Any) -> schema.SessionModeState:
    table = _table()
    return schema.SessionModeState(
        current_mode_id=str(policy.mode),
        available_modes=[schema.SessionMode(id=m, name=table[m]["name"],
                                            description=table[m].get("description"))
                         for m in mode_ids()])


def switch(policy: Any, mode_id: str) -> schema.CurrentModeUpdate:
    """Set ``policy``'s mode; a JSON-RPC invalid-params error for an unknown one."""
    if mode_id not in mode_ids():
        raise RequestError.invalid_params(
            {"modeId": f"unknown mode {mode_id!r} (modes: {', '.join(mode_ids())})"})
    policy.mode = mode_id
    return schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id)
