"""Swapping folders for symlinks while the file tools write: nothing may land outside the
workspace, and no temporary file may be left anywhere.

The swap is made two ways: deterministically, right after the path was checked (the
tool's own ``resolve_path`` is wrapped to swap the folder once it has returned), and as a
real race, a separate process flipping a folder between a real directory and a symlink to
outside as fast as it can while the tools write in a loop.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from aiagent.agent.tools import files, patching
from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.tools import ToolContext, ToolResult

RACE_SECONDS = 2.0
PATCH_UPDATE = "*** Begin Patch\n*** Update File: sub/f.txt\n@@\n-{old}\n+{new}\n*** End Patch"
PATCH_ADD = "*** Begin Patch\n*** Add File: sub/p.txt\n+hi\n*** End Patch"


class Tools:
    def __init__(self, root: Path) -> None:
        self.ctx = ToolContext(workspace=root, call_id="c", emit=lambda e: None)
        self.registry = ToolRegistry()

    def run(self, name: str, args: dict[str, Any]) -> ToolResult:
        tool = self.registry.get(name)
        assert tool is not None
        return asyncio.run(tool.run(args, self.ctx))


@pytest.fixture
def place(tmp_path: Path) -> Iterator[tuple[Path, Path, Tools]]:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    (ws / "sub" / "f.txt").write_text("A\n")
    (outside / "f.txt").write_text("OUTSIDE\n")
    yield ws, outside, Tools(ws)


def everything(folder: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            path = Path(dirpath, name)
            out[str(path.relative_to(folder))] = path.read_bytes() if not path.is_symlink() else b"<link>"
    return out


def temp_files(*folders: Path) -> list[str]:
    return [f"{f}/{name}" for f in folders for name in everything(f) if name.endswith(".tmp")]


def swap_to_outside(ws: Path, outside: Path) -> None:
    (ws / "sub").rename(ws / "sub.real")
    (ws / "sub").symlink_to(outside, target_is_directory=True)


def swapping_after_check(module: Any, monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    """Wrap ``module.resolve_path`` so that the swap happens right after the check passed."""
    real = module.resolve_path

    def resolve_then_swap(*args: Any, **kwargs: Any) -> Path:
        path = real(*args, **kwargs)
        swap()
        return path

    monkeypatch.setattr(module, "resolve_path", resolve_then_swap)


CALLS = [
    (files, "write_file", {"file_path": "sub/f.txt", "content": "PWNED\n"}),
    (files, "write_file", {"file_path": "sub/deeper/new.txt", "content": "PWNED\n"}),
    (files, "edit", {"file_path": "sub/f.txt", "old_string": "A", "new_string": "PWNED"}),
    (patching, "apply_patch", {"input": PATCH_UPDATE.format(old="A", new="PWNED")}),
    (patching, "apply_patch", {"input": PATCH_ADD}),
]


@pytest.mark.parametrize(("module", "tool", "args"), CALLS, ids=[f"{c[1]}-{i}" for i, c in enumerate(CALLS)])
def test_a_parent_swapped_after_the_check_is_refused(place, monkeypatch, module, tool, args) -> None:
    ws, outside, tools = place
    before = everything(outside)
    swapping_after_check(module, monkeypatch, lambda: swap_to_outside(ws, outside))
    result = tools.run(tool, args)
    assert result.is_error, result.content
    assert "became a symlink" in result.content
    assert everything(outside) == before
    assert temp_files(ws, outside) == []


def test_a_final_file_swapped_for_a_symlink_after_the_check_is_refused(place, monkeypatch) -> None:
    ws, outside, tools = place

    def swap() -> None:
        (ws / "sub" / "f.txt").unlink()
        (ws / "sub" / "f.txt").symlink_to(outside / "f.txt")

    swapping_after_check(files, monkeypatch, swap)
    result = tools.run("edit", {"file_path": "sub/f.txt", "old_string": "OUTSIDE", "new_string": "PWNED"})
    assert result.is_error and "is a symlink" in result.content
    assert (outside / "f.txt").read_text() == "OUTSIDE\n"


def test_a_final_file_that_is_a_symlink_to_outside_is_refused(place) -> None:
    ws, outside, tools = place
    (ws / "link.txt").symlink_to(outside / "f.txt")
    patch = "*** Begin Patch\n*** Update File: link.txt\n@@\n-OUTSIDE\n+PWNED\n*** End Patch"
    for name, args in (("write_file", {"file_path": "link.txt", "content": "PWNED\n"}),
                       ("edit", {"file_path": "link.txt", "old_string": "OUTSIDE", "new_string": "PWNED"}),
                       ("apply_patch", {"input": patch})):
        result = tools.run(name, args)
        assert result.is_error and "outside the workspace" in result.content, result.content
    assert (outside / "f.txt").read_text() == "OUTSIDE\n"


def test_a_parent_already_a_symlink_to_outside_is_refused(place) -> None:
    ws, outside, tools = place
    swap_to_outside(ws, outside)
    result = tools.run("write_file", {"file_path": "sub/f.txt", "content": "PWNED\n"})
    assert result.is_error and "outside the workspace" in result.content
    assert (outside / "f.txt").read_text() == "OUTSIDE\n" and temp_files(ws, outside) == []


FLIPPER = """
import os, random, sys, time
ws, outside, until = sys.argv[1], sys.argv[2], float(sys.argv[3])
sub, real, link = ws + "/sub", ws + "/sub.real", ws + "/sub.link"
flips = 0
while time.time() < until:
    try:
        os.symlink(outside, link)
        os.rename(sub, real)
        os.rename(link, sub)      # sub -> outside
        time.sleep(random.random() * 0.0003)
        os.rename(sub, link)
        os.rename(real, sub)      # sub is the real folder again
        os.unlink(link)
        time.sleep(random.random() * 0.0003)
        flips += 1
    except OSError:
        for p in (link,):
            try: os.unlink(p)
            except OSError: pass
        if not os.path.isdir(sub) and os.path.isdir(real):
            try: os.rename(real, sub)
            except OSError: pass
print(flips)
"""


def test_a_folder_flipping_to_a_symlink_during_writes_never_lets_one_out(place) -> None:
    ws, outside, tools = place
    before = everything(outside)
    until = time.time() + RACE_SECONDS
    flipper = subprocess.Popen([sys.executable, "-c", FLIPPER, str(ws), str(outside), str(until)],
                               stdout=subprocess.PIPE, text=True)
    outcomes = {"ok": 0, "refused": 0, "other": 0}
    n = 0
    while time.time() < until:
        n += 1
        for name, args in (
            ("write_file", {"file_path": "sub/f.txt", "content": "A\n"}),
            ("edit", {"file_path": "sub/f.txt", "old_string": "A", "new_string": "B"}),
            ("apply_patch", {"input": PATCH_UPDATE.format(old="B", new="A")}),
            ("apply_patch", {"input": PATCH_ADD}),
            ("write_file", {"file_path": f"sub/d{n % 3}/n.txt", "content": "x\n"}),
        ):
            result = tools.run(name, args)
            kind = "ok" if not result.is_error else (
                "refused" if "symlink" in result.content or "outside the workspace" in result.content else "other")
            outcomes[kind] += 1
    flips = int(flipper.communicate(timeout=30)[0].strip() or 0)
    assert everything(outside) == before, "a write went outside the workspace"
    assert temp_files(ws, outside) == []
    assert flips > 100 and outcomes["ok"] > 0 and outcomes["refused"] > 0, (flips, outcomes)
