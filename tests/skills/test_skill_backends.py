"""The three backends against real skill folders: Starlark in its limited worker, external
processes over JSON-RPC, in-process Python plugins. Permissions are enforced, runaway
code is stopped, crashes are isolated."""

from __future__ import annotations

import asyncio
import shutil
import time
import uuid
from pathlib import Path

import pytest
from skill_helpers import EXAMPLES, FAST, FIXTURES, make_runtime

from aiagent.agent.skills.backends.base import BackendError
from aiagent.agent.skills.permissions import PermissionDenied
from aiagent.agent.skills.tools import guarded


def run(coro):  # noqa: ANN001, ANN201
    return asyncio.run(coro)


async def tool(rt, skill: str, name: str, args: dict) -> tuple[str, bool]:  # noqa: ANN001
    result = await guarded(rt.call(skill, "tool", name, args))
    return result.content, result.is_error


def test_starlark_tools_work(project: Path) -> None:
    async def go() -> None:
        rt = make_runtime([EXAMPLES], project)
        try:
            await rt.activate("word-tools")
            out, err = await tool(rt, "word-tools", "count_words", {"path": "secret.txt"})
            assert not err and '"words": 2' in out
            out, err = await tool(rt, "word-tools", "find_todos", {"pattern": "*.py"})
            assert out == "main.py:1: print('hi')  # TODO: greet properly"
        finally:
            await rt.close()

    run(go())


def test_starlark_without_file_read_cannot_read(project: Path) -> None:
    async def go() -> None:
        rt = make_runtime([FIXTURES], project)
        try:
            await rt.activate("no-read")
            out, err = await tool(rt, "no-read", "peek", {"path": "secret.txt"})
            assert err and "lacks permission file:read" in out and "top secret" not in out
        finally:
            await rt.close()

    run(go())


def test_starlark_exec_and_env_need_their_permissions(project: Path) -> None:
    async def go() -> None:
        rt = make_runtime([FIXTURES], project)
        try:
            await rt.activate("exec-noperm")
            out, err = await tool(rt, "exec-noperm", "run_it", {})
            assert err and "lacks permission shell:exec" in out
            assert not (project / "pwned").exists()
            out, err = await tool(rt, "exec-noperm", "get_home", {})
            assert err and "env:read" in out
        finally:
            await rt.close()

    run(go())


def test_file_access_limited_to_declared_paths(project: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("outside")
    (project / "docs" / "link").symlink_to(tmp_path / "outside.txt")

    async def go() -> None:
        rt = make_runtime([FIXTURES], project)
        try:
            await rt.activate("scoped")
            assert (await tool(rt, "scoped", "show_doc", {"path": "docs/guide.md"}))[0].startswith("# Guide")
            out, err = await tool(rt, "scoped", "show_doc", {"path": "secret.txt"})
            assert err and "outside its file:read scope (docs/)" in out
            for escape in ("../outside.txt", "docs/link", "/etc/passwd"):
                out, err = await tool(rt, "scoped", "show_doc", {"path": escape})
                assert err and "outside the project" in out, escape
        finally:
            await rt.close()

    run(go())


def _worker_pid(rt) -> int:  # noqa: ANN001
    peer = rt.dispatch.starlark_worker().peer
    assert peer is not None, "the Starlark worker is not running"
    return int(peer.pid)


def _address_space_cap(pid: int) -> int:
    """The worker's RLIMIT_AS in bytes, as the kernel reports it."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max address space"):
            return int(line.split()[3])
    raise AssertionError(f"no address-space line in /proc/{pid}/limits")


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_runaway_starlark_is_stopped_and_the_agent_goes_on(project: Path) -> None:
    budget = FAST.starlark_budget

    async def go() -> None:
        rt = make_runtime([FIXTURES], project)
        try:
            await rt.activate("runaway")
            worker = _worker_pid(rt)
            start = time.monotonic()
            out, err = await tool(rt, "runaway", "spin", {})
            took = time.monotonic() - start
            # the evaluator's budget stopped it: not before the budget, well before the kill
            assert err and "ran past its time budget" in out, out
            assert budget * 0.9 <= took < budget + 2.0, took
            assert _worker_pid(rt) == worker, "the budget, not a kill of the worker, stopped it"
            start = time.monotonic()
            out, err = await tool(rt, "runaway", "deep", {})
            assert err and "call stack overflow" in out and "skill.star:9" in out, out
            assert time.monotonic() - start < 2.0
            assert await tool(rt, "runaway", "ok", {}) == ("still alive", False)
        finally:
            await rt.close()

    run(go())


def test_unbounded_allocation_is_stopped(project: Path) -> None:
    cap_mb = FAST.starlark_memory_mb

    async def go() -> None:
        rt = make_runtime([FIXTURES, EXAMPLES], project)
        try:
            await rt.activate("hog")
            await rt.activate("word-tools")
            worker = _worker_pid(rt)
            assert _address_space_cap(worker) == cap_mb * 1024 * 1024
            start = time.monotonic()
            out, err = await tool(rt, "hog", "grow", {})
            took = time.monotonic() - start
            # the memory cap stopped it (the worker ran out of memory), fast, not the time budget
            assert err and "out of memory" in out and f"{cap_mb} MB limit" in out, out
            assert took < FAST.starlark_budget, took
            assert not _alive(worker), "the worker that ran out of memory is gone"
            # the worker was replaced; other skills were loaded again
            out, err = await tool(rt, "word-tools", "count_words", {"path": "secret.txt"})
            assert not err and '"words": 2' in out
            assert _worker_pid(rt) != worker
        finally:
            await rt.close()

    run(go())


def test_starlark_load_error_names_file_and_line(tmp_path: Path, project: Path) -> None:
    folder = tmp_path / "skills" / "typo"
    folder.mkdir(parents=True)
    (folder / "SKILL.yaml").write_text("name: typo\nversion: 1.0.0\ndescription: d\ntypes: [tool]\n"
                                       "implementation: {backend: starlark, entrypoint: s.star}\n")
    (folder / "s.star").write_text("def f(x):\n    return x\n\nregister_tool('f', f)\nundefined_thing()\n")

    async def go() -> None:
        rt = make_runtime([tmp_path / "skills"], project)
        with pytest.raises(BackendError, match=r"skill typo: s\.star:5:1: .*undefined_thing"):
            await rt.activate("typo")
        assert rt.state("typo") == "error"
        await rt.close()

    run(go())


def test_process_skill_and_host_permissions(project: Path) -> None:
    async def go() -> None:
        rt = make_runtime([EXAMPLES], project)
        try:
            start = time.perf_counter()
            await rt.activate("line-stats")
            assert time.perf_counter() - start < 2
            out, err = await tool(rt, "line-stats", "line_stats", {"path": "main.py", "top": 1})
            assert not err and '"lines": 2' in out
            out, err = await tool(rt, "line-stats", "line_stats", {"path": "../../etc/passwd"})
            assert err and "outside the project" in out
        finally:
            await rt.close()

    run(go())


def test_crashing_process_skill_is_isolated(project: Path) -> None:
    async def go() -> None:
        reports: list[str] = []
        rt = make_runtime([FIXTURES, EXAMPLES], project, reports=reports)
        try:
            await rt.activate("crasher")
            await rt.activate("word-tools")
            out, err = await tool(rt, "crasher", "boom", {})
            assert err and "crashed" in out and "status 3" in out and "something terrible" in out
            out, err = await tool(rt, "crasher", "boom", {})  # restarted, crashes again, still reported
            assert err and "crashed" in out
            assert not (await tool(rt, "word-tools", "count_words", {"path": "secret.txt"}))[1]
        finally:
            await rt.close()

    run(go())


def _running_with(token: str) -> list[int]:
    """Live processes whose command line holds ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token in (entry / "cmdline").read_bytes().decode(errors="replace") and _alive(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_process_skill_tree_ends_with_the_skill(tmp_path: Path, project: Path, sandbox: str) -> None:
    """A process skill's child that escapes into its own session dies when the skill closes:
    the process runner ends the skill's whole tree (with or without bubblewrap around it)."""
    folder = tmp_path / "skills" / "daemon"
    folder.mkdir(parents=True)
    token = f"daemon-{uuid.uuid4().hex}"
    (folder / "SKILL.yaml").write_text(
        "name: daemon\nversion: 1.0.0\ndescription: d\ntypes: [tool]\n"
        "implementation: {backend: process, command: [python3, s.py]}\n")
    (folder / "s.py").write_text(
        "import json, subprocess, sys\n"
        f"cmd = [sys.executable, '-c', 'import time; time.sleep(300)', {token!r}]\n"
        "child = subprocess.Popen(cmd, start_new_session=True)\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m.get('method') == 'initialize':\n"
        "        r = {'tools': [{'name': 'hi', 'description': 'd', 'input_schema': {'type': 'object'}}]}\n"
        "    else:\n"
        "        r = {'content': 'hello'}\n"
        "    if 'id' in m:\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n")

    async def go() -> None:
        rt = make_runtime([tmp_path / "skills"], project, process_sandbox=sandbox)
        try:
            await rt.activate("daemon")
            out, err = await tool(rt, "daemon", "hi", {})
            assert not err and "hello" in out, out  # the legitimate use works
            assert _running_with(token), "the skill's child did not start"
        finally:
            await rt.close()

    run(go())
    deadline = time.monotonic() + 3
    while _running_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running_with(token), "the skill's setsid child outlived the skill"


def test_process_env_is_limited(tmp_path: Path, project: Path) -> None:
    folder = tmp_path / "skills" / "envy"
    folder.mkdir(parents=True)
    (folder / "SKILL.yaml").write_text(
        "name: envy\nversion: 1.0.0\ndescription: d\ntypes: [tool]\n"
        "implementation: {backend: process, command: [python3, s.py]}\n")
    (folder / "s.py").write_text(
        "import json, os, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m.get('method') == 'initialize':\n"
        "        r = {'tools': [{'name': 'env_keys'}]}\n"
        "    else:\n"
        "        r = sorted(os.environ)\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n")

    async def go() -> None:
        rt = make_runtime([tmp_path / "skills"], project)
        try:
            await rt.activate("envy")
            out, _ = await tool(rt, "envy", "env_keys", {})
            assert "SECRET" not in out and "AIAGENT_SKILL" in out
        finally:
            await rt.close()

    run(go())


def test_python_plugin_and_hooks(project: Path) -> None:
    async def go() -> None:
        rt = make_runtime([EXAMPLES], project)
        try:
            await rt.activate("guardrails")
            out, err = await tool(rt, "guardrails", "guardrail_rules", {})
            assert not err and "rm -rf /" in out
            results = await rt.fire("on_before_tool_call", {"tool_call": {"name": "shell", "args": {"command": "mkfs /dev/sda"}}})
            assert results[0][1].cancel and "mkfs" in results[0][1].reason
        finally:
            await rt.close()

    run(go())


def test_permission_gate_asks_and_remembers(project: Path) -> None:
    async def go() -> None:
        asked: list[list[str]] = []

        async def say(answer: str):  # noqa: ANN202
            async def ask(skill: str, missing: list[str]) -> str:
                asked.append(missing)
                return answer
            return ask

        rt = make_runtime([EXAMPLES], project, approve=())
        with pytest.raises(PermissionDenied, match="--approve-skills word-tools"):
            await rt.activate("word-tools", approver=await say("deny"))
        await rt.activate("word-tools", approver=await say("always"))
        assert [g.permission for g in rt.gate.store.grants("word-tools")] == ["file:read"]
        await rt.deactivate("word-tools")
        await rt.activate("word-tools", approver=await say("deny"))  # remembered: not asked
        assert len(asked) == 2
        await rt.activate("python-style")  # no permissions: never asks
        assert len(asked) == 2
        await rt.close()

    run(go())


def test_rate_limits_per_turn(tmp_path: Path, project: Path) -> None:
    from aiagent.agent.skills.permissions import Limits

    folder = tmp_path / "skills" / "busy"
    folder.mkdir(parents=True)
    (folder / "SKILL.yaml").write_text("name: busy\nversion: 1.0.0\ndescription: d\ntypes: [tool]\n"
                                       "permissions: [shell:exec]\nimplementation: {backend: starlark, entrypoint: s.star}\n")
    (folder / "s.star").write_text("def f(x):\n    return [exec('true').exit_code for i in range(3)]\n\nregister_tool('f', f)\n")

    async def go() -> None:
        rt = make_runtime([tmp_path / "skills"], project, limits=Limits(max_shell_exec=4, starlark_budget=2))
        try:
            await rt.activate("busy")
            assert await tool(rt, "busy", "f", {}) == ("[\n  0,\n  0,\n  0\n]", False)
            out, err = await tool(rt, "busy", "f", {})
            assert err and "limit of 4 shell:exec uses this turn" in out
            await rt.user_turn("next turn")
            assert not (await tool(rt, "busy", "f", {}))[1]
        finally:
            await rt.close()

    run(go())


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap: the bwrap program is not installed")
def test_process_skill_sandbox_hides_the_project_without_file_read(tmp_path: Path, project: Path) -> None:
    folder = tmp_path / "skills" / "nosy"
    folder.mkdir(parents=True)
    (folder / "SKILL.yaml").write_text(
        "name: nosy\nversion: 1.0.0\ndescription: d\ntypes: [tool]\n"
        "implementation: {backend: process, command: [python3, s.py]}\n")
    (folder / "s.py").write_text(
        "import json, os, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m.get('method') == 'initialize':\n"
        "        r = {'tools': [{'name': 'peek'}]}\n"
        "    else:\n"
        "        p = os.path.join(os.environ['AIAGENT_PROJECT_ROOT'], 'secret.txt')\n"
        "        r = open(p).read() if os.path.exists(p) else 'hidden'\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n")

    async def go() -> None:
        rt = make_runtime([tmp_path / "skills"], project)
        try:
            await rt.activate("nosy")
            assert await tool(rt, "nosy", "peek", {}) == ("hidden", False)
        finally:
            await rt.close()

    run(go())


def test_starlark_worker_is_started_in_the_background_at_session_start(project: Path) -> None:
    """A skill activated later (keyword, activate_skill) then loads in milliseconds."""
    async def go() -> float:
        rt = make_runtime([EXAMPLES], project)
        try:
            await rt.start(None)
            assert rt.dispatch.warming is not None
            await asyncio.wait_for(rt.dispatch.warming, 10)
            assert rt.dispatch.starlark_worker().peer is not None and not rt.dispatch.starlark_worker().peer.closed
            started = time.perf_counter()
            await rt.activate("word-tools")
            return time.perf_counter() - started
        finally:
            await rt.close()

    assert run(go()) < 0.5  # a cold start costs a worker process; a warm load is ~3 ms
