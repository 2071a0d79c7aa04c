"""Helpers: real skill folders (fixtures/skills, examples/skills) in a real runtime."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from aiagent.agent.skills.host import HostServices
from aiagent.agent.skills.loader import Source, discover
from aiagent.agent.skills.permissions import Limits, MemoryGrantStore, PermissionGate
from aiagent.agent.skills.runtime import SkillRuntime

FIXTURES = Path(__file__).parent / "fixtures" / "skills"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"
FAST = Limits(starlark_budget=1.0, shell_timeout=5.0, call_timeout=5.0, starlark_memory_mb=256)


def make_runtime(
    folders: Iterable[Path],
    project: Path,
    *,
    approve: Iterable[str] = ("*",),
    limits: Limits = FAST,
    reports: list[str] | None = None,
    **kwargs: object,
) -> SkillRuntime:
    found = discover([Source("project", f) for f in folders])
    services = HostServices(root=project, limits=limits, env={"PATH": "/usr/bin:/bin", "HOME": str(project), "SECRET": "s3"})
    gate = PermissionGate(MemoryGrantStore(), str(project), frozenset(approve))
    sink = reports if reports is not None else []
    return SkillRuntime(found, services, gate, report=sink.append, **kwargs)  # type: ignore[arg-type]


def make_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "secret.txt").write_text("top secret\n")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\nhello docs\n")
    (root / "main.py").write_text("print('hi')  # TODO: greet properly\nforbidden()\n")
    return root
