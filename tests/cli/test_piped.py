"""Large piped input: kept whole in a file, head and tail inline, nothing dropped unsaid."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from aiagent.frontends.cli import piped


@pytest.fixture
def small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"INLINE": 100, "HEAD": 60, "TAIL": 20, "FILE_LIMIT": 1000, "CHUNK": 64}.items():
        monkeypatch.setattr(piped, name, value)


def lines(count: int) -> bytes:
    return b"".join(b"line %04d\n" % n for n in range(count))


def test_small_input_stays_inline(tmp_path: Path, small_bounds: None) -> None:
    got = piped.read_piped(io.BytesIO(b"short\n"), tmp_path / "inputs")
    assert (got.text, got.saved, got.notice()) == ("short\n", None, "")
    assert not (tmp_path / "inputs").exists()


def test_large_input_is_saved_with_head_and_tail_inline(tmp_path: Path, small_bounds: None) -> None:
    data = lines(50)  # 500 bytes
    got = piped.read_piped(io.BytesIO(data), tmp_path / "inputs")
    assert got.saved is not None and got.saved.read_bytes() == data and got.size == 500
    assert (got.saved.stat().st_mode & 0o777) == 0o600
    assert got.text.startswith("line 0000\n") and got.text.endswith("line 0049\n")
    assert "500 bytes" in got.text and str(got.saved) in got.text and "read_file" in got.text
    assert "line 0025" not in got.text  # the middle is only in the file
    assert "500 bytes" in got.notice() and str(got.saved) in got.notice()


def test_input_past_the_file_limit_is_cut_and_said(tmp_path: Path, small_bounds: None) -> None:
    got = piped.read_piped(io.BytesIO(lines(500)), tmp_path / "inputs")  # 5000 bytes
    assert got.truncated and got.size == 1000
    assert got.saved is not None and got.saved.stat().st_size == 1000
    assert "was not read" in got.text and "was not read" in got.notice()


def test_old_saved_inputs_are_removed(tmp_path: Path, small_bounds: None) -> None:
    import os

    folder = tmp_path / "inputs"
    folder.mkdir()
    old, recent = folder / "stdin-old.txt", folder / "stdin-recent.txt"
    old.write_text("x")
    recent.write_text("y")
    os.utime(old, (1, 1))
    piped.read_piped(io.BytesIO(lines(50)), folder)
    assert not old.exists() and recent.exists()
