"""The pure-Python walk: unreadable folders and files are skipped, and a walk can be
bounded in files and time (and stopped from another thread)."""

from __future__ import annotations

import errno
import os
import sys
import threading
from pathlib import Path

import pytest

from aiagent.agent.tools import walk
from aiagent.agent.tools.walk import Walk, WalkLimits, walk_files


def make(root: Path, names: list[str]) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")


@pytest.fixture
def locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tree whose ``locked/`` folder answers EACCES to every look inside it (as
    ``/proc/1/fdinfo`` does): simulated, since a test run as root reads any mode."""
    make(tmp_path, ["a.py", "locked/b.py", "open/c.py"])
    secret = str(tmp_path / "locked") + os.sep
    real_stat, real_scandir, real_open = os.stat, os.scandir, os.open

    def deny(path: object) -> None:
        if os.fspath(path).startswith(secret):  # type: ignore[call-overload]
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))  # type: ignore[call-overload]

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        deny(path)
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    def scandir(path: object = ".") -> object:
        deny(os.path.join(os.fspath(path), ""))  # type: ignore[call-overload]
        return real_scandir(path)  # type: ignore[call-overload]

    def open_(path: object, *args: object, **kwargs: object) -> int:
        deny(path)
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "open", open_)
    return tmp_path


def test_an_unreadable_folder_is_skipped(locked: Path) -> None:
    found = sorted(p.relative_to(locked).as_posix() for p in walk_files(locked))
    assert found == ["a.py", "open/c.py"]


def test_an_unreadable_folder_is_counted(locked: Path) -> None:
    done = Walk(locked)
    list(done)
    assert done.unreadable >= 1 and done.stopped == ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux's /proc")
def test_proc_of_init_can_be_walked() -> None:
    """``cd / && aiagent`` met ``/proc/1/fdinfo/.ignore``: EACCES for anyone but init's
    owner with ptrace rights (root in a container included)."""
    found = list(walk_files(Path("/proc/1")))
    assert found  # and no PermissionError


def test_the_walk_stops_at_max_files(tmp_path: Path) -> None:
    make(tmp_path, [f"d{i}/f{j}.py" for i in range(5) for j in range(10)])
    bounded = Walk(tmp_path, limits=WalkLimits(max_files=12))
    assert len(list(bounded)) == 12
    assert bounded.stopped == "files" and "12 files" in bounded.why()
    whole = Walk(tmp_path, limits=WalkLimits(max_files=50))
    assert len(list(whole)) == 50 and whole.stopped == "" and whole.why() == ""


def test_the_walk_stops_at_its_time_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, [f"d{i}/f{j}.py" for i in range(5) for j in range(10)])
    now = [100.0]

    def clock() -> float:
        now[0] += 0.1  # every look at the clock costs a tenth of a second
        return now[0]

    monkeypatch.setattr(walk, "monotonic", clock)
    bounded = Walk(tmp_path, limits=WalkLimits(max_seconds=1.0))
    found = list(bounded)
    assert 0 < len(found) < 50
    assert bounded.stopped == "time" and "1 s" in bounded.why()


def test_the_walk_goes_breadth_first(tmp_path: Path) -> None:
    """A bounded walk of a big tree keeps the top of every folder, not one deep corner."""
    make(tmp_path, ["top.py", *[f"a/b/c/deep{j}.py" for j in range(20)], "z/near.py"])
    found = [p.relative_to(tmp_path).as_posix() for p in Walk(tmp_path, limits=WalkLimits(max_files=3))]
    assert "top.py" in found and "z/near.py" in found


def test_a_stop_event_ends_the_walk(tmp_path: Path) -> None:
    make(tmp_path, [f"d{i}/f{j}.py" for i in range(5) for j in range(10)])
    stop = threading.Event()
    bounded = Walk(tmp_path, limits=WalkLimits(stop=stop))
    found = []
    for path in bounded:
        found.append(path)
        stop.set()
    assert len(found) == 1 and bounded.stopped == "stopped"
