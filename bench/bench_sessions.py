"""Session storage figures: time to resume a 2,000-message session, and database size.

    .venv/bin/python bench/bench_sessions.py [--messages 2000] [--runs 5]

Resume = open the database, load and decode every message, rebuild the conversation and
the context window, and prepare the first request (view + token estimate): everything a
``--continue`` does before it talks to the provider. Target: ≤ 300 ms for 2,000 messages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from aiagent.agent.core.session import SessionRequest, open_session
from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from aiagent.contracts.providers import CompletionRequest
from aiagent.infra.config.settings import Settings
from aiagent.infra.store.sessions import SessionStore

TOOL_OUTPUT = "\n".join(f"L{n}: def function_{n}(arg):  # some source line" for n in range(40))


def message(n: int) -> Message:
    """A realistic mix: prompts, assistant text with tool calls, tool results."""
    kind = n % 4
    if kind == 0:
        return Message.user(f"Please look at module {n} and fix the failing test.")
    if kind == 1:
        return Message("assistant", [
            TextBlock(f"I'll read module_{n}.py first to understand the failure."),
            ToolUseBlock(f"call_{n}", "read_file", {"file_path": f"src/module_{n}.py"},
                         raw_input=f'{{"file_path": "src/module_{n}.py"}}'),
        ])
    if kind == 2:
        return Message("user", [ToolResultBlock(f"call_{n - 1}", TOOL_OUTPUT)])
    return Message("assistant", [TextBlock(f"The bug in module {n} is an off-by-one; fixed. " * 3)])


def fill(env: dict[str, str], workspace: Path, count: int) -> str:
    store = SessionStore.open(env)
    info = store.create(workspace, provider="anthropic", model="claude-sonnet-4-5", title="bench")
    for n in range(count):
        store.append(info.id, n, message(n), model="claude-sonnet-4-5", usage=Usage(1000, 50))
    store.close()
    return info.id


def resume_once(settings: Settings, session_id: str) -> float:
    start = time.perf_counter()
    opened = open_session(settings, SessionRequest(resume=session_id))
    request = CompletionRequest("claude-sonnet-4-5", "system", opened.conversation.messages)
    asyncio.run(opened.context.prepare(request, None, lambda _e: None))  # type: ignore[arg-type]
    elapsed = time.perf_counter() - start
    opened.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_DATA_HOME": f"{tmp}/data", "XDG_CONFIG_HOME": f"{tmp}/config"}
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        start = time.perf_counter()
        session_id = fill(env, workspace, args.messages)
        write_ms = (time.perf_counter() - start) * 1000 / args.messages
        settings = Settings.load(workspace, env=env)
        times = [resume_once(settings, session_id) for _ in range(args.runs)]
        db = Path(tmp) / "data" / "aiagent" / "aiagent.db"
        store = SessionStore.open(env)
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        size = db.stat().st_size
    print(f"messages: {args.messages}")
    print(f"write per message: {write_ms:.2f} ms (one transaction each)")
    print(f"resume: median {statistics.median(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms over {args.runs} runs (target <= 300 ms)")
    print(f"database size: {size / 1024:.0f} KiB, {size / 1024 / args.messages * 1000:.0f} KiB "
          f"per 1,000 messages")


if __name__ == "__main__":
    main()
