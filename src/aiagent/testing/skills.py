"""Helpers for testing a skill, against :class:`~aiagent.testing.FakeLLM` for its LLM calls.

    from aiagent.testing.skills import SkillHarness

    async def test_count_words(tmp_path):
        (tmp_path / "a.txt").write_text("one two")
        async with SkillHarness("path/to/skill", project=tmp_path) as h:
            result = await h.call_tool("count_words", {"path": "a.txt"})
            assert '"words": 2' in result.content

``llm=["answer", ...]`` scripts the answers to the skill's ``llm_complete`` calls (served
by a real FakeLLM over HTTP). Every declared permission is granted unless
``approve=False``. :func:`run_cases` runs the declarative ``tests/*.yaml`` cases that
``aiagent skill test`` runs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from aiagent.agent.skills.host import HostServices
from aiagent.agent.skills.loader import Source, discover
from aiagent.agent.skills.permissions import Limits, MemoryGrantStore, PermissionGate
from aiagent.agent.skills.runtime import SkillRuntime
from aiagent.agent.skills.tools import guarded
from aiagent.agent.skills.wiring import provider_llm
from aiagent.contracts.providers import ProviderConfig
from aiagent.contracts.tools import ToolResult
from aiagent.infra.process import git
from aiagent.infra.providers import create_provider
from aiagent.testing import FakeLLM, Turn

__all__ = ["CaseResult", "SkillHarness", "load_cases", "run_cases"]


class SkillHarness:
    """One skill folder, active in a runtime over ``project`` (default: the skill folder)."""

    def __init__(self, skill: str | Path, *, project: str | Path | None = None, llm: Iterable[str] = (),
                 approve: bool = True, limits: Limits | None = None, config: Mapping[str, Any] | None = None,
                 extra_skills: Iterable[str | Path] = ()) -> None:
        self.folder = Path(skill).resolve()
        self.project = Path(project).resolve() if project else self.folder
        self.llm_script = list(llm)
        self.approve = approve
        self.limits = limits or Limits()
        self.config = dict(config or {})
        self.extra = [Path(p).resolve() for p in extra_skills]
        self.fake: Any = None
        self.runtime: SkillRuntime | None = None
        self.reports: list[str] = []
        self.name = ""

    async def __aenter__(self) -> SkillHarness:
        found = discover([*(Source("project", p) for p in self.extra), Source("inline", self.folder)])
        if found.broken:
            raise ValueError(found.broken[0].error)
        entry = next((e for e in found.skills.values() if e.manifest.root.resolve() == self.folder), None)
        if entry is None:
            raise ValueError(f"{self.folder}: no skill found")
        self.name = entry.name
        services = HostServices(root=self.project, limits=self.limits, llm=self._llm(),
                                skill_config={self.name: self.config})
        gate = PermissionGate(MemoryGrantStore(), str(self.project), frozenset({"*"} if self.approve else ()))
        self.runtime = SkillRuntime(found, services, gate, report=self.reports.append)
        await self.runtime.activate(self.name, "test")
        return self

    def _llm(self) -> Any:
        if not self.llm_script:
            return None

        self.fake = FakeLLM([Turn(text=t) for t in self.llm_script]).start()
        provider = create_provider("anthropic", ProviderConfig(base_url=self.fake.url, api_key="test", max_retries=0))
        return provider_llm(provider, "fake")

    async def __aexit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        if self.runtime is not None:
            await self.runtime.close()
        if self.fake is not None:
            self.fake.stop()

    @property
    def rt(self) -> SkillRuntime:
        assert self.runtime is not None, "use SkillHarness with `async with`"
        return self.runtime

    async def call_tool(self, name: str, args: Mapping[str, Any]) -> ToolResult:

        return await guarded(self.rt.call(self.name, "tool", name, dict(args)))

    async def run_workflow(self, name: str, input: Mapping[str, Any]) -> ToolResult:

        return await guarded(self.rt.run_workflow(name, input))

    async def fire(self, phase: str, event: Mapping[str, Any]) -> list[Any]:
        return await self.rt.fire(phase, event)

    def prompt(self) -> str:
        return "\n\n".join(f.text for f in self.rt.prompt_fragments() if f.title.startswith("Skill:"))


@dataclass(slots=True)
class CaseResult:
    file: str
    name: str
    ok: bool
    detail: str = ""


def _check(case: Mapping[str, Any], text: str, is_error: bool) -> str:
    expect = case.get("expect") or {}
    problems = []
    for piece in _as_list(expect.get("contains")):
        if str(piece) not in text:
            problems.append(f"expected {piece!r} in {text[:300]!r}")
    for piece in _as_list(expect.get("not_contains")):
        if str(piece) in text:
            problems.append(f"did not expect {piece!r} in {text[:300]!r}")
    if "is_error" in expect and bool(expect["is_error"]) != is_error:
        problems.append(f"expected is_error={expect['is_error']}, got {is_error}: {text[:300]!r}")
    return "; ".join(problems)


def _as_list(value: Any) -> list[Any]:
    return [] if value is None else value if isinstance(value, list) else [value]


async def _run_case(folder: Path, case: Mapping[str, Any], project: Path) -> tuple[str, bool]:
    async with SkillHarness(folder, project=project, llm=case.get("llm") or (),
                            config=case.get("config")) as h:
        if "tool" in case:
            r = await h.call_tool(str(case["tool"]), case.get("args") or {})
            return r.content, r.is_error
        if "workflow" in case:
            r = await h.run_workflow(str(case["workflow"]), case.get("input") or {})
            return r.content, r.is_error
        if "scanner" in case:
            r = await guarded_scan(h, str(case["scanner"]), case.get("input") or {})
            return r.content, r.is_error
        if "hook" in case:
            results = await h.fire(str(case["hook"]), case.get("event") or {})
            return json.dumps([{"skill": s, **{k: v for k, v in vars_of(r).items() if v}} for s, r in results]), False
        return h.prompt(), False


async def guarded_scan(h: SkillHarness, name: str, input: Mapping[str, Any]) -> ToolResult:

    return await guarded(h.rt.call(h.name, "scanner", name, dict(input)))


def vars_of(obj: Any) -> dict[str, Any]:
    return {k: getattr(obj, k) for k in obj.__slots__} if hasattr(obj, "__slots__") else dict(vars(obj))


def load_cases(folder: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """(file name, case) for every case in ``FOLDER/tests/*.yaml``."""
    import yaml

    found: list[tuple[str, dict[str, Any]]] = []
    for file in sorted((Path(folder) / "tests").glob("*.y*ml")):
        cases = yaml.safe_load(file.read_text("utf-8")) or []
        items = cases if isinstance(cases, list) else cases.get("cases", []) if isinstance(cases, dict) else []
        found += [(file.name, case) for case in items if isinstance(case, dict)]
    return found


def _prepare(root: Path, case: Mapping[str, Any]) -> None:
    """Write the case's ``files`` and build its ``sqlite`` databases in ``root``."""
    import sqlite3

    for rel, text in (case.get("files") or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(str(text), encoding="utf-8")
    commits = case.get("commits")
    if commits is not None:
        _git_repo(root, [str(c) for c in commits])
    for rel, script in (case.get("sqlite") or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(root / rel)
        try:
            db.executescript(str(script))
            db.commit()
        finally:
            db.close()


def _git_repo(root: Path, subjects: list[str]) -> None:
    """A git repository in ``root`` holding its files, then one commit per subject."""

    who = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com"}

    def run(*args: str) -> None:
        done = git.run(git.prepare(root, *args, env={**os.environ, **who}), 30)
        if done.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")

    run("init", "-q")
    run("add", "-A")
    for subject in subjects:
        run("commit", "-q", "--allow-empty", "-m", subject)


async def run_cases(folder: str | Path, project: str | Path | None = None) -> list[CaseResult]:
    """Run every case in ``FOLDER/tests/*.yaml``: each is a mapping with ``name`` and one of
    ``tool``+``args``, ``workflow``+``input``, ``scanner``+``input``, ``hook``+``event`` or ``prompt: true``, plus
    ``expect`` (``contains``, ``not_contains``, ``is_error``), ``llm`` (scripted answers),
    ``config`` (the skill's config), ``files`` (path → text written into a scratch project
    first), ``commits`` (subjects: the project becomes a git repository with these commits)
    and ``sqlite`` (path → SQL script run into a new SQLite database there)."""
    import tempfile

    folder = Path(folder).resolve()
    results: list[CaseResult] = []
    for i, (file, case) in enumerate(load_cases(folder)):
        name = str(case.get("name") or f"case {i + 1}")
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(project) if project else Path(scratch)
            try:
                _prepare(root, case)
                text, is_error = await _run_case(folder, case, root)
                problem = _check(case, text, is_error)
            except Exception as exc:  # noqa: BLE001 - a failing case is a result
                problem = f"{type(exc).__name__}: {exc}"
        results.append(CaseResult(file, name, not problem, problem))
    return results
