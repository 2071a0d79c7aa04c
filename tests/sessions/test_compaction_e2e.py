"""A long session through the real CLI compacts and keeps going: old tool output is
trimmed, older turns are summarised, the latest request still holds the user's message,
the stored history stays complete, and a resumed session sends the same compacted view."""

from __future__ import annotations

import json
from pathlib import Path

from sessions_helpers import (
    COMPACT_MARK,
    SummarisingFake,
    anthropic_env,
    chat_requests,
    db_rows,
    is_compaction,
)

from aiagent.testing import FakeLLM, ToolCall, Turn

FILLER = "lorem ipsum dolor sit amet " * 60  # ~1600 characters


def _project(tmp_path: Path, budget: int = 6000) -> Path:
    folder = tmp_path / "proj"
    (folder / ".agent").mkdir(parents=True)
    (folder / ".agent" / "config.toml").write_text(
        f"[agent]\ncontext_budget = {budget}\ntools = [\"read_file\"]\n")
    for n in range(1, 9):
        (folder / f"f{n}.txt").write_text(f"fact {n}: value-{n}\n{FILLER}\n")
    return folder


def _script(files: int) -> list[Turn]:
    turns = [Turn(text=f"Noted: fact {n} is value-{n}. {FILLER}",
                  tool_calls=[ToolCall("read_file", {"file_path": f"f{n}.txt"})])
             for n in range(1, files + 1)]
    return [*turns, Turn(text="All facts read.")]


SUMMARY = "Facts so far: " + ", ".join(f"fact {n} is value-{n}" for n in range(1, 9))


def test_long_session_compacts_and_keeps_going(run_cli, tmp_path: Path, clean_env) -> None:
    project = _project(tmp_path)
    with SummarisingFake(_script(8), SUMMARY) as fake:
        proc = run_cli("--headless", "-p", "Read f1.txt to f8.txt and list the facts.",
                       cwd=project, env=anthropic_env(fake))
        compactions = [r["json"] for r in fake.requests if COMPACT_MARK in json.dumps(r["json"].get("system"))]
        chats = chat_requests(fake)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "All facts read.\n"
    assert compactions, "no compaction request was made"
    transcript = json.dumps(compactions[0]["messages"])
    assert "value-1" in transcript  # the summariser saw the oldest facts
    last = json.dumps(chats[-1]["messages"])
    assert SUMMARY in last  # the summary replaces the older turns...
    assert "Read f1.txt to f8.txt" in last  # ...and the user's request is never dropped
    assert "value-8" in last
    sizes = [len(json.dumps(c)) for c in chats]
    assert max(sizes) < 6000 * 4 * 1.1  # no request went far past the budget
    # the stored history is complete
    roles = [r[0] for r in db_rows(clean_env, "SELECT role FROM messages ORDER BY seq")]
    assert len(roles) == 18
    stored = json.dumps(db_rows(clean_env, "SELECT content FROM messages ORDER BY seq"))
    assert all(f"value-{n}" in stored for n in range(1, 9)) and "lorem ipsum" in stored
    plans = db_rows(clean_env, "SELECT plan FROM compactions")
    assert plans and json.loads(plans[-1][0])["summary"] == SUMMARY
    # a resumed session sends the same compacted view, then the new message
    with FakeLLM([Turn(text="value-3")]) as fake2:
        again = run_cli("--headless", "--continue", "-p", "What is fact 3?", cwd=project,
                        env=anthropic_env(fake2))
        resumed = fake2.requests[0]["json"]["messages"]
    assert again.returncode == 0, again.stderr
    assert SUMMARY in json.dumps(resumed[0])
    assert "What is fact 3?" in json.dumps(resumed[-1])


def test_failed_compaction_leaves_the_session_usable(run_cli, tmp_path: Path, clean_env) -> None:
    project = _project(tmp_path, budget=5000)
    with SummarisingFake(_script(8), None) as fake:  # every summary request fails
        proc = run_cli("--headless", "-p", "Read them all.", cwd=project, env=anthropic_env(fake))
        tried = [r for r in fake.requests if is_compaction(r["json"])]
        chats = chat_requests(fake)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "All facts read.\n"
    assert tried  # it tried, failed, and went on
    last = json.dumps(chats[-1]["messages"])
    assert "Read them all." in last and "value-8" in last
    assert max(len(json.dumps(c)) for c in chats) < 5000 * 4 * 1.1
    assert len(db_rows(clean_env, "SELECT seq FROM messages")) == 18
