"""Language servers: the tools and the diagnostics after an edit against a real pylsp, and
what a missing, hostile, hanging or crashing server gets."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.tools.tool_harness import Harness

from aiagent.infra.process.jsonrpc import _HeaderInbox
from aiagent.testing import FakeLLM, ToolCall, Turn

FAKE = Path(__file__).with_name("lsp_fake_server.py")
PYLSP = shutil.which("pylsp") or shutil.which("pylsp", path=str(Path(sys.executable).parent))


def needs_pylsp() -> None:
    if PYLSP is None:
        pytest.skip("needs pylsp: pip install 'python-lsp-server[pyflakes]' (in the test extra)")


def lsp(**extra: Any) -> dict[str, Any]:
    return {"lsp": {"enabled": True, "diagnostics_after_edit": True, "diagnostics_wait": 5,
                    "start_timeout": 30, "request_timeout": 30, "max_diagnostics": 20,
                    "trusted": False, **extra}}


class Workspace(Harness):
    def __init__(self, root: Path, **extra: Any) -> None:
        super().__init__(root)
        self.ctx.settings.update(lsp(**extra))

    def close(self) -> None:
        from aiagent.agent.tools.base import release_tool_state

        asyncio.run(release_tool_state(self.ctx.state))

    def run(self, name: str, args: dict[str, Any], **settings: Any) -> Any:
        # one event loop for the whole test: the servers live as long as the workspace
        from aiagent.agent.tools.base import validate_args

        tool = self.registry.get(name)
        assert tool is not None
        problem = validate_args(tool, args)
        assert problem is None, problem
        return self.loop.run_until_complete(tool.run(args, self.ctx))

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if not hasattr(self, "_loop"):
            self._loop = asyncio.new_event_loop()
        return self._loop

    def stop(self) -> None:
        from aiagent.agent.tools.base import release_tool_state

        self.loop.run_until_complete(release_tool_state(self.ctx.state))
        self.loop.close()


@pytest.fixture
def py(tmp_path: Path):
    needs_pylsp()
    (tmp_path / "shapes.py").write_text(
        "import os\n\n\ndef area(width, height):\n    \"\"\"The area of a rectangle.\"\"\"\n"
        "    return width * height\n\n\nprint(area(2, 3))\n")
    (tmp_path / "main.py").write_text("from shapes import area\n\nprint(area(4, 5))\n")
    ws = Workspace(tmp_path)
    yield ws
    ws.stop()


def test_diagnostics_definition_references_hover_symbols(py: Workspace) -> None:
    assert py.ok("lsp_diagnostics", {"file_path": "shapes.py"}) == \
        "1:1 warning: 'os' imported but unused [pyflakes]"
    assert py.ok("lsp_definition", {"file_path": "main.py", "line": 3, "symbol": "area"}) == \
        "shapes.py:4:5: def area(width, height):"
    refs = py.ok("lsp_references", {"file_path": "shapes.py", "line": 4, "column": 5}).splitlines()
    assert "shapes.py:4:5: def area(width, height):" in refs and any(r.startswith("main.py:3:") for r in refs)
    hover = py.ok("lsp_hover", {"file_path": "main.py", "line": 3, "symbol": "area"})
    assert "area(width, height)" in hover and "The area of a rectangle." in hover
    symbols = py.ok("lsp_symbols", {"query": "are"})
    assert "area  shapes.py:4: def area(width, height):" in symbols


def test_an_edit_shows_its_own_mistakes(py: Workspace) -> None:
    out = py.ok("edit", {"file_path": "main.py", "old_string": "print(area(4, 5))",
                         "new_string": "print(aera(4, 5))"})
    assert out.startswith("Edited main.py: replaced 1 occurrence.\n\nDiagnostics for main.py (pylsp):")
    assert "3:7 error: undefined name 'aera' [pyflakes]" in out
    assert out.index("error:") < out.index("warning:")  # errors first
    fixed = py.ok("edit", {"file_path": "main.py", "old_string": "aera", "new_string": "area"})
    assert fixed == "Edited main.py: replaced 1 occurrence."  # clean again: nothing appended


def test_no_diagnostics_when_turned_off(py: Workspace) -> None:
    py.ctx.settings["lsp"]["diagnostics_after_edit"] = False
    out = py.ok("write_file", {"file_path": "bad.py", "content": "print(nope)\n"})
    assert out == "Created bad.py (1 lines)"


def test_position_errors(py: Workspace) -> None:
    assert "past the end of the file" in py.err("lsp_hover", {"file_path": "main.py", "line": 99})
    assert "'zzz' is not on line 3" in py.err("lsp_hover", {"file_path": "main.py", "line": 3, "symbol": "zzz"})
    assert "no such file" in py.err("lsp_hover", {"file_path": "nope.py", "line": 1})
    assert "access denied" in py.err("lsp_hover", {"file_path": "../x.py", "line": 1})


# ---- absent, hostile and broken servers ----------------------------------------------


def fake(mode: str) -> list[str]:
    return [sys.executable, str(FAKE), mode]


@pytest.fixture
def go(tmp_path: Path):
    (tmp_path / "main.go").write_text("package main\n\nfunc main() {}\n")
    made: list[Workspace] = []

    def make(mode: str, trusted: bool = True) -> Workspace:
        ws = Workspace(tmp_path, servers={"go": fake(mode)}, trusted=trusted, start_timeout=3,
                       request_timeout=3, diagnostics_wait=3)
        made.append(ws)
        return ws

    yield make
    for ws in made:
        ws.stop()


def test_a_working_server_and_malformed_diagnostics(go) -> None:
    assert go("ok").ok("lsp_diagnostics", {"file_path": "main.go"}) == "1:1 error: fake problem [fake]"


def test_a_server_that_runs_project_code_needs_trust(go) -> None:
    err = go("ok", trusted=False).err("lsp_diagnostics", {"file_path": "main.go"})
    assert "runs the project's own code" in err and "trusted folder" in err
    edit = go("ok", trusted=False).ok("write_file", {"file_path": "x.go", "content": "package x\n"})
    assert edit == "Created x.go (1 lines)"  # the edit works; no server, no diagnostics


@pytest.mark.parametrize(("mode", "message"), [
    ("garbage", "stopped"),
    ("hang", "did not initialise within 3s"),
])
def test_broken_servers_are_one_line_and_edits_still_work(go, mode: str, message: str) -> None:
    ws = go(mode)
    err = ws.err("lsp_diagnostics", {"file_path": "main.go"})
    assert message in err and "\n" not in err
    # not retried at once: the next call answers from memory, fast
    assert ws.err("lsp_diagnostics", {"file_path": "main.go"}) == err
    assert ws.ok("write_file", {"file_path": "y.go", "content": "package y\n"}) == "Created y.go (1 lines)"


def test_a_server_that_crashes_is_started_again(tmp_path: Path) -> None:
    (tmp_path / "main.go").write_text("package main\n")
    marker = tmp_path / "crashed"
    ws = Workspace(tmp_path, servers={"go": [*fake("crash"), str(marker)]}, trusted=True,
                   start_timeout=5, diagnostics_wait=5)
    try:
        first = ws.err("lsp_diagnostics", {"file_path": "main.go"})
        assert first.startswith("python") and "stopped: the process exited with status 3" in first
        assert marker.exists()
        assert ws.ok("lsp_diagnostics", {"file_path": "main.go"}) == "1:1 error: fake problem [fake]"
    finally:
        ws.stop()


def test_a_missing_server_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    (tmp_path / "a.rs").write_text("fn main() {}\n")
    ws = Workspace(tmp_path, servers={}, trusted=True)
    try:
        err = ws.err("lsp_diagnostics", {"file_path": "a.rs"})
    finally:
        ws.stop()
    assert err == "no language server for rust on PATH (install one of: rust-analyzer)"


def test_a_configured_server_that_does_not_exist(tmp_path: Path) -> None:
    (tmp_path / "a.go").write_text("package a\n")
    ws = Workspace(tmp_path, servers={"go": ["/nonexistent/gopls"]}, trusted=True)
    try:
        assert "gopls did not start" in ws.err("lsp_diagnostics", {"file_path": "a.go"})
    finally:
        ws.stop()


def test_header_framing() -> None:
    inbox = _HeaderInbox()
    body = json.dumps({"id": 1, "result": "é"}).encode()
    framed = b"Content-Length: %d\r\n\r\n" % len(body) + body
    for i in range(len(framed)):  # one byte at a time
        inbox.feed("stdout", framed[i:i + 1])
    inbox.feed("stdout", framed + framed)  # two in one chunk
    got = [inbox.lines.get_nowait() for _ in range(3)]
    assert got == [body, body, body]
    inbox.feed("stdout", b"garbage\r\n\r\n")
    assert inbox.lines.get_nowait() is None  # a broken peer ends the conversation


# ---- end to end: the model sees its own mistake ---------------------------------------


def test_headless_edit_result_carries_diagnostics(run_cli, tmp_path: Path) -> None:
    needs_pylsp()
    project = tmp_path / "proj"
    project.mkdir()
    script = [Turn(tool_calls=[ToolCall("write_file", {"file_path": "app.py",
                                                        "content": "print(undefined_thing)\n"})]),
              Turn(text="done")]
    env = {"ANTHROPIC_API_KEY": "sk-ant-test-123456"}
    with FakeLLM(script) as fake:
        env["ANTHROPIC_BASE_URL"] = fake.url
        done = run_cli("--headless", "--provider", "anthropic", "--approval-mode", "full-auto",
                       "--prompt", "write app.py", cwd=project, env=env, timeout=120)
        second = json.dumps(fake.requests[1]["json"]["messages"])
    assert done.returncode == 0, done.stderr
    assert "undefined name 'undefined_thing'" in second and "Diagnostics for app.py (pylsp)" in second
