"""process/jsonrpc: closing a peer while a request waits fails that request (PeerDied) at
once; it never hangs (seen when a hosted engine was stopped mid-prompt)."""

from __future__ import annotations

import asyncio
import os
import sys
import time

import pytest

from aiagent.infra.process.jsonrpc import PeerDied, spawn_peer

SILENT = [sys.executable, "-c", "import sys, time\nfor _ in sys.stdin: pass\ntime.sleep(60)\n"]


async def _no_calls(method: str, params: object) -> object:  # the child never calls us
    raise AssertionError(method)


def test_close_fails_a_waiting_request_instead_of_hanging(tmp_path: object) -> None:
    async def main() -> float:
        peer = await spawn_peer(SILENT, cwd=str(tmp_path), env=dict(os.environ), handler=_no_calls)
        waiting = asyncio.ensure_future(peer.request("work", {}, timeout=None))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        await peer.close(grace=0.2)
        with pytest.raises(PeerDied):
            await asyncio.wait_for(waiting, 5)
        return time.monotonic() - started

    assert asyncio.run(main()) < 5
