"""The fatal hint's block check: a block is declared free of the hint (and its lines'
levels taken from their level field alone) only when no line of it can match."""

from __future__ import annotations

import pytest

from aiagent.engines.logs.rules import _fewest, patterns

FATAL_LINES = [
    "panic: runtime error: index out of range",
    "fatal error: all goroutines are asleep - deadlock!",
    "Out of memory: Killed process 4242 (java)",
    "container app OOMKilled",
    "kernel: oom-kill:constraint=CONSTRAINT_NONE",
    "Killed process 17 (postgres) total-vm:1kB",
    "worker 3: segmentation fault at 0x0",
    "Aborted (core dumped)",
]


def test_the_fatal_hint_is_looked_for_as_six_words() -> None:
    # OOMKilled and Killed process share "Killed": one pass over a block for both
    assert set(patterns().fatal_hint.literals or ()) == {
        "panic:", "fatal error:", "oom-kill", "segmentation fault", "core dumped", "Killed"}


@pytest.mark.parametrize("line", FATAL_LINES)
def test_a_block_with_a_fatal_line_is_never_declared_free_of_it(line: str) -> None:
    hint = patterns().fatal_hint
    assert hint.search(line), line  # (the example is one the hint matches)
    block = f"2024-05-01 12:00:00 INFO a quiet line\n2024-05-01 12:00:01 ERROR {line}\n"
    assert not hint.absent(block)
    assert not hint.absent_bytes(block.encode())


def test_a_clean_block_is_free_of_it() -> None:
    block = "".join(f"2024-05-01 12:00:{n:02d} INFO request {n} served in 3 ms\n"
                    for n in range(60))
    assert patterns().fatal_hint.absent_bytes(block.encode())


@pytest.mark.parametrize("heads, fewest", [
    (["ab", "xabcy"], ("ab",)),                            # one holds the other
    (["OOMKilled", "Killed process"], ("Killed",)),        # they share a long word
    (["fault1", "fault2"], ("fault1", "fault2")),          # "fault" is too short to share
    (["alpha beta", "alpha beta gamma", "beta gamma"], ("alpha beta", "beta gamma")),
])
def test_fewest_words(heads: list[str], fewest: tuple[str, ...]) -> None:
    assert set(_fewest(heads)) == set(fewest)
    for head in heads:  # whatever holds a head holds one of the words
        assert any(word in head for word in _fewest(heads))
