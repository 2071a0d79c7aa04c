"""Streaming Markdown: finished blocks are committed once, in order, never split badly."""

from __future__ import annotations

from aiagent.frontends.tui.markdown_stream import MarkdownStream, stable_boundary


def test_boundary_after_a_blank_line() -> None:
    text = "First paragraph.\n\nSecond, still being wr"
    assert text[: stable_boundary(text)] == "First paragraph.\n\n"


def test_no_boundary_inside_an_open_code_fence() -> None:
    text = "Intro.\n\n```python\ndef f():\n\n    return 1\n"
    assert text[: stable_boundary(text)] == "Intro.\n\n"


def test_closing_fence_ends_a_block() -> None:
    text = "```\ncode\n```\nafter"
    assert text[: stable_boundary(text)] == "```\ncode\n```\n"


def test_tilde_fences_and_nothing_finished() -> None:
    assert stable_boundary("~~~\nx\n\ny") == 0
    assert stable_boundary("just one line") == 0


def test_stream_commits_each_block_once_whatever_the_chunking() -> None:
    text = "# Title\n\nSome text.\n\n```py\na = 1\n\nb = 2\n```\n\n- one\n- two\n"
    for size in (1, 3, 7, len(text)):
        blocks: list[str] = []
        stream = MarkdownStream(blocks.append)
        for i in range(0, len(text), size):
            stream.feed(text[i : i + size])
        stream.flush()
        assert blocks == ["# Title", "Some text.", "```py\na = 1\n\nb = 2\n```", "- one\n- two"]


def test_reset_drops_the_unfinished_tail() -> None:
    blocks: list[str] = []
    stream = MarkdownStream(blocks.append)
    stream.feed("Done block.\n\npartial answ")
    stream.reset()
    stream.feed("fresh answer")
    stream.flush()
    assert blocks == ["Done block.", "fresh answer"]
