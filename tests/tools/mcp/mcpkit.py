"""Helpers for the MCP tests: the SDK-built test server and settings that configure it."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any

SERVER = Path(__file__).with_name("server_app.py")


def stdio_entry(**extra: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SERVER)], **extra}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])



def settings_for(workspace: Path, servers: dict[str, dict[str, object]], **mcp: object) -> Any:
    """Settings of ``workspace`` with ``servers`` in the user config."""
    import tomli_w

    from aiagent.infra.config.settings import Settings

    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "aiagent"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.toml").write_text(tomli_w.dumps({"mcp": {"servers": servers, **mcp}}))
    return Settings.load(workspace)
