"""``aiagent acp``'s process: claim stdout, serve the protocol until stdin ends or a
SIGTERM/SIGINT, then close every session (their running commands are killed)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from aiagent.frontends.acp.server import AcpOptions, AcpServer
from aiagent.frontends.acp.stdio import StdioTransport, claim_stdout, stdin_reader


def run(options: AcpOptions) -> int:
    out = claim_stdout()  # before anything can print
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="aiagent acp: %(levelname)s %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(options, out))
    return 0


async def _serve(options: AcpOptions, out: object) -> None:
    from acp.core import AgentSideConnection

    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, main.cancel if main else lambda: None)
    transport = StdioTransport(await stdin_reader(), out)  # type: ignore[arg-type]
    server = AcpServer(options)
    conn = AgentSideConnection(server, transport, listening=False)
    try:
        await conn.listen()
    except asyncio.CancelledError:
        pass
    finally:
        with contextlib.suppress(Exception):
            await asyncio.shield(conn.close())
        await server.close()
