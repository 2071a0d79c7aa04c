"""A process skill runs in its own user and PID namespaces with no capability: it cannot
see the agent's process nor read ``/proc/<agent pid>/environ`` (where the provider keys
live). Without the sandbox the same skill can, which shows the probe is real."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from sandbox_helpers import need

from aiagent.agent.skills.host import HostServices
from aiagent.agent.skills.loader import Source, discover
from aiagent.agent.skills.permissions import Limits, MemoryGrantStore, PermissionGate
from aiagent.agent.skills.runtime import SkillRuntime
from aiagent.agent.skills.tools import guarded

SKILL = """\
import json, sys
def look(pid):
    try:
        env = open(f"/proc/{pid}/environ", "rb").read()
        environ = "read" if b"PATH=" in env else "empty"
    except OSError as e:
        environ = type(e).__name__
    cap = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff:")][0]
    return {"environ": environ, "cap_eff": cap}
for line in sys.stdin:
    m = json.loads(line)
    r = {"tools": [{"name": "look"}]} if m.get("method") == "initialize" else look(%d)
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"""


def _look(tmp_path: Path, mode: str) -> dict[str, str]:
    folder = tmp_path / "skills" / "nosy"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.yaml").write_text(
        "name: nosy\nversion: 1.0.0\ndescription: d\ntypes: [tool]\n"
        "implementation: {backend: process, command: [python3, s.py]}\n")
    (folder / "s.py").write_text(SKILL % os.getpid())
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)

    async def go() -> str:
        services = HostServices(root=project, limits=Limits(call_timeout=10.0),
                                env={"PATH": "/usr/bin:/bin", "HOME": str(project)})
        gate = PermissionGate(MemoryGrantStore(), str(project), frozenset(["*"]))
        rt = SkillRuntime(discover([Source("project", tmp_path / "skills")]), services, gate,
                          report=lambda _: None, process_sandbox=mode)
        try:
            await rt.activate("nosy")
            result = await guarded(rt.call("nosy", "tool", "look", {}))
            assert not result.is_error, result.content
            return result.content
        finally:
            await rt.close()

    return json.loads(asyncio.run(go()))


def test_sandboxed_skill_cannot_read_the_agents_environment(tmp_path: Path) -> None:
    need("bubblewrap")
    seen = _look(tmp_path, "required")
    assert seen["environ"] == "FileNotFoundError"  # the agent's pid does not exist in its namespace
    assert int(seen["cap_eff"], 16) == 0


def test_unsandboxed_skill_could_read_it(tmp_path: Path) -> None:
    assert _look(tmp_path, "off")["environ"] == "read"
