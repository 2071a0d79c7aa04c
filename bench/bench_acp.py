"""``aiagent acp``: time from spawn to the ``initialize`` response, and from
``session/prompt`` to the first ``session/update``, against FakeLLM on loopback.

    .venv/bin/python bench/bench_acp.py [--runs 5]

Each run spawns the real ``aiagent acp`` (isolated HOME) and talks to it with the ``acp``
package's client side. Figures: spawn → initialize response; session/new; prompt → first
update (the agent's set-up of a session's first turn plus FakeLLM's answer), and the same
on the session's second prompt (set-up done); medians of ``--runs``. The package's own
import (``acp.schema``, pydantic models) is measured alone for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, schema, spawn_agent_process

from aiagent.testing import FakeLLM, Turn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.acp.peer import AIAGENT, Recorder, isolated_env  # noqa: E402


async def one_run(root: Path, fake: FakeLLM) -> dict[str, float]:
    project = root / "proj"
    project.mkdir()
    client = Recorder()
    env = isolated_env(root / "home", fake)
    figures: dict[str, float] = {}
    with (root / "acp.log").open("wb") as log:
        start = time.perf_counter()
        async with spawn_agent_process(client, AIAGENT, "acp", "--provider", "anthropic", env=env,
                                       cwd=project, transport_kwargs={"stderr": log.fileno()}) as (conn, _):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            figures["initialize"] = time.perf_counter() - start
            t = time.perf_counter()
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            figures["session/new"] = time.perf_counter() - t
            for key in ("first update (1st prompt)", "first update (2nd prompt)"):
                client.updates.clear()
                t = time.perf_counter()
                turn = asyncio.create_task(conn.prompt(
                    session_id=sid, prompt=[schema.TextContentBlock(type="text", text="hi")]))
                await client.wait_for(lambda: bool(client.updates))
                figures[key] = time.perf_counter() - t
                await turn
    return figures


def import_time() -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import acp.core"], check=True)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    runs: list[dict[str, float]] = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp, FakeLLM([Turn(text="hello")] * 2) as fake:
            runs.append(asyncio.run(one_run(Path(tmp), fake)))
    print(f"aiagent acp, median of {args.runs} runs (FakeLLM on loopback):")
    for key in runs[0]:
        print(f"  {key:<28} {statistics.median(r[key] for r in runs) * 1000:8.1f} ms")
    python_alone: Any = statistics.median(import_time() for _ in range(args.runs))
    print(f"  {'python -c import acp.core':<28} {python_alone * 1000:8.1f} ms  (the package alone)")


if __name__ == "__main__":
    main()
