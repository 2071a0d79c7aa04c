"""Apple platform tools: Xcode builds and tests, simulators, ``xcrun`` (and, from
``tools.toml``, whatever else the ``apple-dev`` skill offers).

``tools.toml`` is the one list: each tool's class, the platforms it is offered on and the
executables it needs. :data:`TOOLS` (name -> "module:Class") joins the built-in registry
(:mod:`aiagent.agent.tools.base`); :mod:`aiagent.agent.tools.apple.gating` decides what is offered
where. Nothing here imports a tool module: they load when first used.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any


@cache
def catalog() -> dict[str, Any]:
    """``tools.toml`` as read (``tools`` and ``install`` tables)."""
    text = resources.files(__name__).joinpath("tools.toml").read_text("utf-8")
    return tomllib.loads(text)


def tool_targets() -> dict[str, str]:
    """name -> "module:Class" of every Apple tool."""
    return {name: str(spec["target"]) for name, spec in catalog()["tools"].items()}


TOOLS: dict[str, str] = tool_targets()
