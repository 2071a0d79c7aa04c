"""``aiagent acp``: the Agent Client Protocol on stdin/stdout (see docs/acp.md)."""

from __future__ import annotations

import click

from aiagent.frontends.cli.settings_load import run_options


@click.command("acp")
@click.option("--provider", default=None, help="Provider to use.")
@click.option("--model", default=None, help="Model to use.")
def acp(provider: str | None, model: str | None) -> None:
    """Serve an editor (Zed, any ACP host) over the Agent Client Protocol on stdio."""
    from aiagent.frontends.acp.main import run
    from aiagent.frontends.acp.server import AcpOptions

    chosen = run_options(provider, model)  # `aiagent --trust --provider openai acp` counts too
    raise SystemExit(run(AcpOptions(provider=chosen.get("provider"), model=chosen.get("model"),
                                    trust=bool(chosen.get("trust")))))
