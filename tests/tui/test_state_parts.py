"""The interactive app's parts that own state: the turn's checkpoint, the next message's
extra context and the read loop (each changed only through its methods)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from aiagent.frontends.tui import checkpoint
from aiagent.frontends.tui.checkpoint import CheckpointTracker
from aiagent.frontends.tui.state import NextMessage, ReadLoop


class FakeCheckpoints:
    """``begin`` blocks until ``release`` is set; ``end`` records the turn it saved."""

    def __init__(self, fail: bool = False) -> None:
        self.release = threading.Event()
        self.saved: list[Any] = []
        self.fail = fail

    def begin(self, prompt: str, history_len: int) -> tuple[str, int]:
        self.release.wait(5)
        if self.fail:
            raise OSError("disk full")
        return (prompt, history_len)

    def end(self, turn: Any) -> None:
        self.saved.append(turn)


def test_tools_wait_for_the_snapshot_and_the_turn_is_saved_when_tools_ran() -> None:
    said: list[Any] = []
    store = FakeCheckpoints()

    async def go() -> None:
        tracker = CheckpointTracker(said.append)
        tracker.begin(store, "fix it", 3)  # type: ignore[arg-type]
        gate = asyncio.ensure_future(tracker.gate(None))
        await asyncio.sleep(0.1)
        assert not gate.done(), "a tool ran before the workspace snapshot was taken"
        store.release.set()
        await asyncio.wait_for(gate, 5)
        await tracker.end(tools_ran=True)
        await tracker.end(tools_ran=True)  # the turn is over: nothing more to save

    asyncio.run(go())
    assert store.saved == [("fix it", 3)]
    assert said == []


def test_a_turn_without_tools_saves_nothing() -> None:
    store = FakeCheckpoints()
    store.release.set()

    async def go() -> None:
        tracker = CheckpointTracker(lambda r: None)
        tracker.begin(store, "hello", 0)  # type: ignore[arg-type]
        await tracker.end(tools_ran=False)

    asyncio.run(go())
    assert store.saved == []


def test_a_slow_snapshot_is_said_and_tools_go_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checkpoint, "CHECKPOINT_WAIT", 0.05)
    said: list[Any] = []
    store = FakeCheckpoints()

    async def go() -> None:
        tracker = CheckpointTracker(said.append)
        tracker.begin(store, "big", 1)  # type: ignore[arg-type]
        await asyncio.wait_for(tracker.gate(None), 5)
        store.release.set()
        await tracker.end(tools_ran=True)

    asyncio.run(go())
    assert "checkpoint is slow" in str(said[0])
    assert store.saved == [("big", 1)]


def test_a_failed_snapshot_is_said_at_the_end_of_the_turn() -> None:
    said: list[Any] = []
    store = FakeCheckpoints(fail=True)
    store.release.set()

    async def go() -> None:
        tracker = CheckpointTracker(said.append)
        tracker.begin(store, "x", 0)  # type: ignore[arg-type]
        await tracker.gate(None)
        await tracker.end(tools_ran=True)

    asyncio.run(go())
    assert len(said) == 1 and "checkpoint not saved: disk full" in str(said[0])


def test_no_checkpoints_means_no_waiting_and_nothing_said() -> None:
    said: list[Any] = []

    async def go() -> None:
        tracker = CheckpointTracker(said.append)
        tracker.begin(None, "x", 0)
        await tracker.gate(None)
        await tracker.end(tools_ran=True)

    asyncio.run(go())
    assert said == []


def test_the_next_message_carries_what_was_shared_once() -> None:
    shared = NextMessage()
    assert shared.attach_to("hi") == "hi"
    shared.share("<user-shell-command>ls</user-shell-command>")
    shared.share("[undone: a.py]")
    assert shared.attach_to("hi") == "hi\n\n<user-shell-command>ls</user-shell-command>\n\n[undone: a.py]"
    assert shared.attach_to("again") == "again"
    shared.share("dropped")
    shared.drop()
    assert shared.attach_to("new") == "new"


def test_the_read_loop_gives_typed_ahead_text_once_and_remembers_a_quit() -> None:
    loop = ReadLoop()
    loop.carry("half a line", False)
    assert loop.take_typed() == ("half a line", False)
    assert loop.take_typed() == ("", False)
    loop.carry("send me", True, quit=True)
    loop.carry("", False)  # a later turn does not undo the quit
    assert loop.quit
    stopped = ReadLoop()
    stopped.stop()
    assert stopped.quit
