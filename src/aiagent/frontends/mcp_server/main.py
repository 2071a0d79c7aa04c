"""``aiagent mcp serve``'s process: claim stdin/stdout for the protocol, log to stderr,
serve until stdin ends or a SIGTERM/SIGINT, then stop every call still running (their
workers' process trees are killed)."""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
from typing import IO

from aiagent.frontends.mcp_server.server import MAX_MESSAGE, ServeOptions, build
from aiagent.frontends.mcp_server.stdio import capped_stdio, claim_stdio


def run(options: ServeOptions) -> int:
    wire_in, wire_out = claim_stdio()  # before anything can print
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="aiagent mcp serve: %(levelname)s %(message)s")
    _quiet_sdk()
    import anyio

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(_serve, options, wire_in, wire_out)
    return 0


def _quiet_sdk() -> None:
    """The SDK logs a refused call or a dropped client at INFO and above, some with a
    traceback; the server's own lines say what matters."""
    for name in ("mcp", "mcp.server", "mcp.shared"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


async def _serve(options: ServeOptions, wire_in: int, wire_out: IO[bytes]) -> None:
    import anyio

    from aiagent.frontends.mcp_server.protocol import lowlevel

    server = lowlevel(build(options))
    with anyio.CancelScope() as scope:
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                import asyncio

                asyncio.get_running_loop().add_signal_handler(sig, scope.cancel)
        async with capped_stdio(wire_in, wire_out, MAX_MESSAGE) as (read, write):
            await server.run(read, write, server.create_initialization_options())
