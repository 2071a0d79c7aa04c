"""Detection and rules: the bubblewrap probe names a machine that refuses user namespaces
(and ``auto`` then falls back to Landlock); Landlock's grants leave the protected entries
out; ``aiagent sandbox check`` says what the active backend does not enforce."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_helpers import need

from aiagent.infra import sandbox
from aiagent.infra.sandbox import bubblewrap, landlock

PROBE = ("from aiagent.infra import sandbox; from aiagent.infra.sandbox import bubblewrap; "
         "print(bubblewrap.probe()); print(sandbox.detect('auto').backend)")


def test_probe_says_when_user_namespaces_are_refused(tmp_path: Path) -> None:
    """Inside a bubblewrap that forbids nested user namespaces, as a hardened kernel would."""
    need("bubblewrap")
    if bubblewrap._version() < (0, 8, 0):
        pytest.skip("needs bubblewrap >= 0.8.0 for --disable-userns")
    keep = [a for p in bubblewrap.hidden_programs() for a in ("--ro-bind", p, p)]  # a venv in /tmp
    outer = [bubblewrap.executable(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             "--tmpfs", "/tmp", *keep, "--unshare-user", "--disable-userns", "--unshare-pid", "--",
             sys.executable, "-c", PROBE]
    done = subprocess.run(outer, capture_output=True, text=True, timeout=60, check=True)
    reason, fallback = done.stdout.strip().splitlines()
    assert reason.startswith("this machine refuses user namespaces to bwrap")
    assert fallback == ("landlock" if landlock.abi_version() >= 1 else "none")


def test_probe_accepts_a_machine_with_user_namespaces() -> None:
    info = need("bubblewrap")
    assert info.backend == "bubblewrap" and info.network_isolation == "full"


def test_landlock_grants_skip_protected_entries_and_symlinks(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for folder in ("src", ".git/hooks", "docs/deep"):
        (ws / folder).mkdir(parents=True)
    (ws / "README.md").write_text("r\n")
    (ws / "escape").symlink_to("/")
    roots = landlock.grant_roots([str(ws)], [str(ws / ".git")])
    assert roots == [ws / "README.md", ws / "docs", ws / "src"]


def test_landlock_grants_nest_down_to_a_protected_entry(tmp_path: Path) -> None:
    (tmp_path / "ws" / "a" / "b").mkdir(parents=True)
    (tmp_path / "ws" / "a" / ".git").mkdir()
    (tmp_path / "other").mkdir()
    roots = landlock.grant_roots([str(tmp_path)], [str(tmp_path / "ws" / "a" / ".git")])
    assert roots == [tmp_path / "other", tmp_path / "ws" / "a" / "b"]


def test_without_protected_entries_the_workspace_is_granted_whole(tmp_path: Path) -> None:
    assert landlock.grant_roots([str(tmp_path)], []) == [tmp_path]


def test_protected_paths_default_and_configured(tmp_path: Path) -> None:
    for name in (".git", ".agent", "secrets"):
        (tmp_path / name).mkdir()
    assert sandbox.protected_paths(tmp_path, None, [tmp_path]) == [tmp_path / ".git", tmp_path / ".agent"]
    assert sandbox.protected_paths(tmp_path, ["secrets"], [tmp_path]) == [tmp_path / "secrets"]
    assert sandbox.protected_paths(tmp_path, None, [tmp_path / "src"]) == []  # not writable anyway


@pytest.mark.parametrize("backend", ["bubblewrap", "landlock"])
def test_sandbox_check_states_the_backend_and_its_gaps(backend: str, run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    info = need(backend)
    done = run_cli("sandbox", "check", "--backend", backend, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"sandbox: {backend}" in done.stdout
    for gap in info.not_enforced:
        assert f"not enforced: {gap}" in done.stdout
    if backend == "landlock" and landlock.abi_version() < 6:
        assert "signals to processes outside the sandbox" in done.stdout
    if backend == "bubblewrap":
        assert "not enforced" not in done.stdout


def test_programs_under_a_temp_folder_stay_visible_read_only(tmp_path: Path) -> None:
    """A checkout or venv under /tmp (as CI clones often are): its programs still run in the
    sandbox, whose own /tmp is private, and cannot be written there."""
    need("bubblewrap")
    from aiagent.infra.sandbox import sandbox_argv

    tools = tmp_path / "tools" / "bin"
    tools.mkdir(parents=True)
    (tools / "hello").write_text("#!/bin/sh\necho hello from tmp\n")
    (tools / "hello").chmod(0o755)
    ws = tmp_path / "elsewhere"
    ws.mkdir()
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    old_path = os.environ["PATH"]
    os.environ["PATH"] = env["PATH"]  # the sandbox reads the PATH the commands will use
    try:
        argv = sandbox_argv(["sh", "-c", f"hello; touch {tools}/x 2>/dev/null || echo ro"], ws,
                            backend="bubblewrap")
    finally:
        os.environ["PATH"] = old_path
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=30, check=False)
    assert done.stdout.split() == ["hello", "from", "tmp", "ro"], done.stderr
    assert not (tools / "x").exists()


def test_landlock_split_folders_get_create_only(tmp_path: Path) -> None:
    (tmp_path / "ws" / ".git").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    roots = landlock.create_only_roots([str(tmp_path)], [str(tmp_path / "ws" / ".git")])
    assert roots == [tmp_path, tmp_path / "ws"]
    assert landlock.create_only_roots([str(tmp_path)], []) == []
    assert landlock.CREATE_ONLY & (landlock.WRITE_FILE | landlock.MAKE_SYM | landlock.REFER
                                   | landlock.REMOVE_DIR | landlock.REMOVE_FILE) == 0


def test_the_hard_link_filter_covers_each_architecture() -> None:
    from aiagent.infra.sandbox import nolink

    program = nolink.program()
    arches = [k for code, _, _, k in program if code == nolink.JEQ_K and k in nolink.LINK_CALLS]
    assert sorted(arches) == sorted(nolink.LINK_CALLS)
    denied = {k for code, _, _, k in program if code == nolink.JEQ_K and k not in nolink.LINK_CALLS}
    assert {86, 265, 9, 303, 37, 330} <= denied
    assert program[-1] == (nolink.RET_K, 0, 0, nolink.RET_ALLOW)
