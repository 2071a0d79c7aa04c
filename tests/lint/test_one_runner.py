"""One process runner: outside ``aiagent/process/`` nothing in ``src/`` starts a process
itself. Commands go through :mod:`aiagent.infra.process.runner` (``spawn``, ``spawn_detached``)
or :mod:`aiagent.infra.process.collect` (``run_collected``), and git through
:mod:`aiagent.infra.process.git`; those give every child its own tree, killed with everything it
started on a limit, on cancellation and when the agent exits.

The few places allowed to spawn directly are listed below, each with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "aiagent"

SPAWNERS = {
    ("asyncio", "create_subprocess_exec"), ("asyncio", "create_subprocess_shell"),
    ("subprocess", "Popen"), ("subprocess", "run"), ("subprocess", "call"),
    ("subprocess", "check_call"), ("subprocess", "check_output"),
    ("os", "system"), ("os", "popen"), ("os", "fork"), ("os", "forkpty"),
    ("os", "spawnv"), ("os", "spawnvp"), ("os", "spawnve"), ("os", "spawnl"), ("os", "posix_spawn"),
    ("os", "posix_spawnp"), ("pty", "spawn"),
}
SPAWNER_NAMES = {name for _, name in SPAWNERS}

ALLOWED = {
    "infra/sandbox/bubblewrap.py":
        "the sandbox probe: `bwrap --version` and one `bwrap … true` trial at detection, "
        "synchronous and short, before there is an event loop; only the exit status is used",
    "frontends/cli/sandbox_cmd.py":
        "`aiagent sandbox run CMD` gives the user's own terminal to their command in the "
        "foreground (stdin and tty inherited) and exits with its status; the runner's pipes "
        "would take the terminal away",
    "app/batch/worker.py":
        "a batch worker is a long-lived python child speaking JSON lines over its pipes, driven "
        "synchronously from one thread per slot; on a time or memory limit its whole tree is "
        "killed with infra.process.tree.kill_tree",
}


def _spawn_calls(path: Path) -> list[str]:
    """``module.name`` spawning calls in ``path`` (also names imported from those modules)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    imported = {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module in {"asyncio", "subprocess", "os", "pty"}
                for alias in node.names if alias.name in SPAWNER_NAMES}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and (func.value.id, func.attr) in SPAWNERS:
            found.append((node.lineno, f"{func.value.id}.{func.attr}"))
        elif isinstance(func, ast.Attribute) and func.attr in {"create_subprocess_exec", "create_subprocess_shell"}:
            found.append((node.lineno, func.attr))
        elif isinstance(func, ast.Name) and func.id in imported:
            found.append((node.lineno, func.id))
    return [f"{name} (line {line})" for line, name in sorted(found)]


def _modules() -> dict[str, list[str]]:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if not rel.startswith("infra/process/"):
            calls = _spawn_calls(path)
            if calls:
                found[rel] = calls
    return found


def test_nothing_outside_the_process_package_spawns() -> None:
    rogue = {rel: calls for rel, calls in _modules().items() if rel not in ALLOWED}
    assert not rogue, ("start processes through aiagent.infra.process.runner / collect (or add the "
                       f"module to ALLOWED with its reason): {rogue}")


def test_the_allow_list_is_short_and_current() -> None:
    spawning = _modules()
    stale = [rel for rel in ALLOWED if rel not in spawning]
    assert not stale, f"these no longer spawn; take them off ALLOWED: {stale}"
    assert len(ALLOWED) <= 3 and all(len(reason) > 40 for reason in ALLOWED.values())


def test_the_check_sees_each_way_of_spawning(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import asyncio, os, subprocess\n"
        "from subprocess import Popen as P\n"
        "async def f(loop):\n"
        "    await asyncio.create_subprocess_exec('x')\n"
        "    subprocess.run(['x'])\n"
        "    P(['x'])\n"
        "    os.system('x')\n"
        "    await loop.create_subprocess_exec('x')\n"
        "    subprocess.TimeoutExpired  # a name, not a call\n"
    )
    assert [c.split(" ")[0] for c in _spawn_calls(sample)] == [
        "asyncio.create_subprocess_exec", "subprocess.run", "P", "os.system", "create_subprocess_exec"]
