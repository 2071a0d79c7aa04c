"""The login shell's rc files run once, outside the sandbox (a shell snapshot); sandboxed
commands then run with the environment they set up and print none of their noise."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tool_harness import Harness

from aiagent.agent.tools.shell import snapshot
from aiagent.infra.sandbox import detect

PROFILE = """echo "profile noise"
echo run >> "$HOME/rc-runs"
mkdir -p "$HOME/.pyenv/shims" && touch "$HOME/.pyenv/shims/.probe" 2>/dev/null \\
  || { echo "mktemp: failed to create file via template: Permission denied"; echo "pyenv: cannot rehash"; }
export PATH="$HOME/bin:$PATH"
export FROM_RC=yes
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder outside the temp folders (bubblewrap's /tmp inside is private)."""
    home = Path(tempfile.mkdtemp(prefix="aiagent-home-", dir=Path.home()))
    (home / "bin").mkdir(parents=True)
    (home / ".profile").write_text(PROFILE)
    tool = home / "bin" / "hello-from-rc"
    tool.write_text("#!/bin/sh\necho hello\n")
    tool.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("SHELL", "/bin/bash")
    snapshot._memo.clear()
    yield home
    shutil.rmtree(home, ignore_errors=True)


def _box() -> dict[str, object]:
    info = detect("auto")
    if not info.available:
        pytest.skip(f"no sandbox on this machine: {info.detail}")
    return {"enabled": True, "backend": info.backend, "network": False, "writable": [],
            "protected": [".git", ".agent"]}


def _output(content: str) -> str:
    return content.split("Output:\n", 1)[1]


def test_sandboxed_commands_get_the_rc_path_without_its_noise(ws: Harness, home: Path, tmp_path: Path) -> None:
    shell = {"login": True, "shell": "/bin/bash"}
    for _ in range(3):
        result = ws.run("shell_command", {"command": "hello-from-rc; echo $FROM_RC"},
                        sandbox=_box(), shell=shell)
        out = _output(result.content).split("\n[stopped ")[0]  # bwrap's pid 1 is counted at times
        assert out == "hello\nyes\n", result.content
    assert (home / "rc-runs").read_text() == "run\n"  # once, outside the sandbox
    cached = list((Path(str(tmp_path / "cache")) / "aiagent" / "shell-snapshots").glob("*.json"))
    assert len(cached) == 1 and cached[0].stat().st_mode & 0o777 == 0o600


def test_exec_command_uses_the_snapshot_too(ws: Harness, home: Path) -> None:
    out = ws.ok("exec_command", {"cmd": "hello-from-rc", "yield_time_ms": 5000, "login": True},
                sandbox=_box(), shell={"shell": "/bin/bash"})
    assert "hello" in out and "noise" not in out and "rehash" not in out


def test_a_slow_login_shell_is_refused_and_said(ws: Harness, home: Path) -> None:
    (home / ".profile").write_text("sleep 2\nexport PATH=\"$HOME/bin:$PATH\"\n")
    result = ws.run("shell_command", {"command": "hello-from-rc"},
                    shell={"login": True, "shell": "/bin/bash", "snapshot_timeout": 0.3})
    assert "hello" in result.content  # ran as before, with -l
    assert "the login shell's environment was not captured (/bin/bash -l took more than 0.3 s" \
        in result.content


@pytest.mark.parametrize("raw", [b"[]", b"not json", json.dumps({f"V{i}": "x" for i in range(5000)}).encode(),
                                 b"{" + b" " * (2 * 1024 * 1024) + b"}"])
def test_hostile_snapshots_are_refused(raw: bytes) -> None:
    with pytest.raises(snapshot.SnapshotRefused):
        snapshot._validate(raw)


def test_odd_names_functions_and_secrets_are_dropped() -> None:
    env = snapshot._validate(json.dumps({"PATH": "/x", "BASH_FUNC_f%%": "() { :; }", "A=B": "c",
                                         "NUL": "a\0b", "OPENAI_API_KEY": "sk-x", "PWD": "/",
                                         "N": 3}).encode())
    assert env == {"PATH": "/x"}
