"""Commands run INSIDE the real sandbox (each backend available here) and prove what it
holds: no capability, no remount or mount, no sight of or signal to outside processes, no
write outside the workspace or into its protected entries, no host /tmp, no network.
Beside each refusal, the legitimate use that must keep working."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import CANARY, Box, git_workspace, need

CONNECT = ("python3 -c 'import socket,sys; s=socket.create_connection((\"127.0.0.1\", {port}), 3);"
           " sys.stdout.write(s.recv(4).decode())'")


CONNECT_ABSTRACT = ("python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX);"
                    " s.connect(\"\\0{name}\"); sys.stdout.write(s.recv(4).decode())'")


def _status(box: Box, field: str) -> int:
    line = box.ok(f"grep '^{field}:' /proc/self/status")
    return int(line.split()[1], 16)


def test_no_effective_capability(box: Box) -> None:
    assert _status(box, "CapEff") == 0
    assert _status(box, "CapPrm") == 0
    assert _status(box, "CapBnd") == 0  # not even root regains one on exec


def test_python_and_a_pipeline_run(box: Box) -> None:
    assert box.ok("python3 -c 'print(6 * 7)'") == "42\n"
    assert box.ok("printf 'b\\na\\nc\\n' | sort | head -2 | tr -d '\\n'") == "ab"


def test_remount_and_bind_mount_are_refused(box: Box) -> None:
    done = box.run("mount -o remount,rw /")
    assert done.returncode != 0, done.stdout
    done = box.run("mkdir -p m && mount --bind / m && touch m/root-owned-by-sandbox")
    assert done.returncode != 0
    assert not Path("/root-owned-by-sandbox").exists()
    assert box.run("touch /escaped-by-remount").returncode != 0


def test_writes_outside_the_workspace_are_refused(box: Box) -> None:
    outside = Path.home() / f".aiagent-sandbox-{uuid.uuid4().hex}"
    try:
        done = box.run(f"echo x > {outside}")
        assert done.returncode != 0 and not outside.exists()
    finally:
        outside.unlink(missing_ok=True)


def test_writes_inside_the_workspace_land(box: Box) -> None:
    box.ok("echo new > src/x && mkdir -p src/pkg && echo y > src/pkg/y && rm src/app.py")
    assert (box.workspace / "src" / "x").read_text() == "new\n"
    assert (box.workspace / "src" / "pkg" / "y").read_text() == "y\n"
    assert not (box.workspace / "src" / "app.py").exists()


def test_git_and_agent_folders_stay_read_only(box: Box) -> None:
    config = box.workspace / ".git" / "config"
    before = config.read_text()
    for attack in ("printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config",
                   "echo 'touch pwned' > .git/hooks/pre-commit",
                   "rm -f .git/config", "mv .git .git-moved", "rm -rf .git",
                   "echo x > .agent/config.toml", "mkdir .agent/skills/evil",
                   "mkdir .agent/skills && echo x > .agent/skills/SKILL.md"):
        done = box.run(attack)
        assert done.returncode != 0, attack
    assert config.read_text() == before
    assert (box.workspace / ".agent" / "config.toml").read_text() == "# agent config\n"
    hook, skills = box.workspace / ".git" / "hooks" / "pre-commit", box.workspace / ".agent" / "skills"
    if box.backend == "landlock":  # may create empty entries in a protected folder, no more
        assert not hook.exists() or hook.stat().st_size == 0
        assert not skills.exists() or list(skills.iterdir()) in ([], [skills / "SKILL.md"])
        assert not (skills / "SKILL.md").exists() or (skills / "SKILL.md").stat().st_size == 0
    else:
        assert not hook.exists() and not skills.exists()


def test_git_status_and_log_work_with_git_read_only(box: Box) -> None:
    box.ok("echo change >> src/app.py")
    assert "src/app.py" in box.ok("git status --porcelain")
    assert "init" in box.ok("git log --oneline")


def test_outside_process_cannot_be_signalled(box: Box, outsider: subprocess.Popen[bytes]) -> None:
    from aiagent.infra.sandbox import landlock

    if box.backend == "landlock" and landlock.abi_version() < 6:
        pytest.skip(f"kernel Landlock ABI {landlock.abi_version()} < 6: no signal scoping")
    assert box.run(f"kill -0 {outsider.pid}").returncode != 0
    assert box.run(f"kill -KILL {outsider.pid}").returncode != 0
    assert outsider.poll() is None  # still alive
    os.kill(outsider.pid, 0)


def test_a_process_inside_can_be_signalled(box: Box) -> None:
    assert box.ok("sleep 30 & p=$!; kill -TERM $p; wait $p; echo $?") == "143\n"


def test_outside_process_is_invisible(box: Box, outsider: subprocess.Popen[bytes]) -> None:
    if box.backend == "landlock":
        pytest.skip("Landlock has no PID namespace: outside processes stay visible in /proc "
                    "(docs/sandbox.md); their environment is unreadable, tested below")
    assert box.run(f"test -e /proc/{outsider.pid}").returncode != 0
    assert str(outsider.pid) not in box.ok("ps -e -o pid=").split()


def test_outside_environment_is_unreadable(box: Box, outsider: subprocess.Popen[bytes]) -> None:
    done = box.run(f"cat /proc/{outsider.pid}/environ; cat /proc/{os.getpid()}/environ")
    assert CANARY not in done.stdout
    assert done.returncode != 0


def test_own_environment_is_readable(box: Box) -> None:
    assert "PATH=" in box.ok("cat /proc/self/environ")


def test_network_is_refused(box: Box, server: int) -> None:
    done = box.run(CONNECT.format(port=server))
    assert done.returncode != 0 and "pong" not in done.stdout


def test_network_works_when_allowed(box: Box, server: int) -> None:
    assert box.ok(CONNECT.format(port=server), network=True) == "pong"


def test_abstract_unix_socket_outside_is_unreachable(box: Box, abstract_socket: str) -> None:
    from aiagent.infra.sandbox import landlock

    if box.backend == "landlock" and landlock.abi_version() < 6:
        pytest.skip(f"kernel Landlock ABI {landlock.abi_version()} < 6: no abstract socket scoping")
    done = box.run(CONNECT_ABSTRACT.format(name=abstract_socket))
    assert done.returncode != 0 and "pong" not in done.stdout


def test_abstract_unix_socket_outside_is_reachable_with_network(box: Box, abstract_socket: str) -> None:
    assert box.ok(CONNECT_ABSTRACT.format(name=abstract_socket), network=True) == "pong"


def test_abstract_unix_socket_inside_works(box: Box) -> None:
    script = ("import socket,threading\n"
              "s=socket.socket(socket.AF_UNIX); s.bind('\\0aiagent-inside'); s.listen(1)\n"
              "threading.Thread(target=lambda: s.accept()[0].sendall(b'pong')).start()\n"
              "c=socket.socket(socket.AF_UNIX); c.connect('\\0aiagent-inside'); print(c.recv(4).decode())\n")
    (box.workspace / "src" / "unix.py").write_text(script)
    assert box.ok("python3 src/unix.py") == "pong\n"


def test_host_tmp_is_not_visible(box: Box) -> None:
    if box.backend == "landlock":
        pytest.skip("Landlock cannot give a private /tmp (no mount namespace): the host's temp "
                    "folders are shared, as docs/sandbox.md says")
    marker = Path("/tmp") / f"aiagent-host-{uuid.uuid4().hex}"
    marker.write_text("host\n")
    inner = f"aiagent-inner-{uuid.uuid4().hex}"
    try:
        assert box.run(f"test -e {marker}").returncode != 0
        assert box.ok(f"echo in > /tmp/{inner} && cat /tmp/{inner}") == "in\n"
        assert not (Path("/tmp") / inner).exists()
    finally:
        marker.unlink()


def test_root_is_nobody_inside_and_its_files_stay_the_callers(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs to run as root: the mapping applies to a caller that is root")
    need("bubblewrap")
    box = Box("bubblewrap", git_workspace(tmp_path / "ws"))
    assert box.ok("id -u; id -g") == "65534\n65534\n"
    box.ok("echo x > src/made-inside")
    assert (box.workspace / "src" / "made-inside").stat().st_uid == 0


def test_new_entries_can_be_created_at_the_top_level(box: Box) -> None:
    """``touch new.txt`` and ``mkdir build`` at the workspace's top level work while
    ``.git`` and ``.agent`` are protected (under Landlock too)."""
    box.ok("touch new.txt && mkdir build")
    assert (box.workspace / "new.txt").is_file() and (box.workspace / "build").is_dir()
    box.ok("echo later > new.txt && echo y > build/out.txt")  # the next command writes them
    assert (box.workspace / "build" / "out.txt").read_text() == "y\n"


def test_protected_entries_cannot_be_replaced_or_planted(box: Box) -> None:
    """An attacker's ways into a protected entry from a writable top level: rename it away
    and recreate it, plant an absent one with content (a ``.claude`` file, through a hard
    link of a writable top-level file), symlink a hook, hard-link a hook."""
    ws = box.workspace
    (ws / "README.md").write_text("gitdir: /tmp/evil\n")
    (ws / ".git" / "hooks").mkdir(exist_ok=True)
    (ws / ".git" / "hooks" / "pre-commit.sample").write_text("#!/bin/sh\n")
    for attack in ("mv .git .git-moved && mkdir .git && echo x > .git/config",
                   "mv .agent .agent-moved", "ln README.md .claude", "ln src/app.py .agents",
                   "echo evil > .claude", "mkdir .agents && echo x > .agents/skill.md",
                   "ln -s /tmp/evil.sh .git/hooks/pre-commit",
                   "ln .git/hooks/pre-commit.sample .git/hooks/pre-commit",
                   "ln -s /tmp .claude", "mkfifo .claude"):
        box.run(attack)
    assert (ws / ".git" / "HEAD").is_file() and not (ws / ".git-moved").exists()
    assert (ws / ".agent" / "config.toml").read_text() == "# agent config\n"
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    if box.backend == "bubblewrap":
        return  # bubblewrap binds only entries that exist: an absent one can be created
    for name in (".claude", ".agents"):  # at most an empty folder or an empty file
        planted = ws / name
        assert not planted.is_symlink(), name
        assert not planted.exists() or planted.is_dir() or planted.stat().st_size == 0, name
        if planted.is_dir():
            assert all(p.stat().st_size == 0 for p in planted.rglob("*") if p.is_file()), name
