"""The example skills (spec §4.11 and more): each one's own cases pass through the real
`aiagent skill test --strict` (LLM calls answered by FakeLLM), plus checks a case file
cannot express: files a workflow wrote, the exact classification of a Node skill."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from skill_helpers import EXAMPLES

from aiagent.testing.skills import SkillHarness

ALL = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir())
NEEDS = {"database": "sqlite3", "npm-scripts": "node"}


def test_the_spec_examples_and_the_extra_backends_are_there() -> None:
    assert {"database", "ddd-expert", "rfc-writer", "hipaa-compliance", "i18n-output",  # spec §4.11
            "npm-scripts", "guardrails", "line-stats"} <= set(ALL)  # Node process, Python plugin, Python process


def _needs(name: str) -> None:
    tool = NEEDS.get(name)
    if tool and shutil.which(tool) is None:
        pytest.skip(f"needs {tool}: the {name} example runs it (installed by .ci/run)")


@pytest.mark.parametrize("name", ALL)
def test_example_passes_skill_test_strict(run_cli, name: str) -> None:  # noqa: ANN001
    _needs(name)
    proc = run_cli("skill", "test", str(EXAMPLES / name), "--strict", timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failed" in proc.stdout and "warning" not in proc.stdout + proc.stderr
    assert proc.stdout.count("PASS") >= 1


def test_rfc_writer_writes_the_models_document(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/cache.py").write_text("def get(key): ...\n")

    async def go() -> str:
        async with SkillHarness(EXAMPLES / "rfc-writer", project=tmp_path, llm=["outline", "# RFC: Cache\nbody"]) as h:
            from aiagent.testing.skills import _git_repo

            _git_repo(tmp_path, ["Add a read-through cache"])
            result = await h.run_workflow("write-rfc", {"topic": "cache"})
            assert not result.is_error, result.content
            outline, expand = (json.dumps(r, default=lambda b: b.decode("utf-8", "replace")) for r in h.fake.requests)
            assert "def get(key)" in outline and "## Alternatives considered" in outline  # context + template
            assert "Add a read-through cache" in expand and "outline" in expand  # history + outline
            return (tmp_path / "docs/rfcs/rfc-cache.md").read_text()

    assert asyncio.run(go()) == "# RFC: Cache\nbody"


def test_npm_scripts_classifies_each_script(tmp_path: Path) -> None:
    _needs("npm-scripts")
    scripts = {"dev": "vite", "build": "vite build", "test": "vitest run", "watch": "tsc --watch",
               "start": "node server.js", "lint": "eslint ."}
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))

    async def go() -> list[dict[str, str]]:
        async with SkillHarness(EXAMPLES / "npm-scripts", project=tmp_path) as h:
            result = await h.call_tool("npm_scripts", {})
            assert not result.is_error, result.content
            return json.loads(result.content)

    kinds = {s["name"]: s["kind"] for s in asyncio.run(go())}
    assert kinds == {"build": "foreground", "dev": "background", "lint": "foreground",
                     "start": "background", "test": "foreground", "watch": "background"}


def test_database_tool_needs_its_grant(tmp_path: Path) -> None:
    _needs("database")
    import sqlite3

    db = sqlite3.connect(tmp_path / "app.db")
    db.executescript("CREATE TABLE t(x); INSERT INTO t VALUES (42);")
    db.close()

    async def go(approve: bool) -> str:
        try:
            async with SkillHarness(EXAMPLES / "database", project=tmp_path, approve=approve,
                                    config={"path": "app.db"}) as h:
                return (await h.call_tool("db_query", {"query": "SELECT x FROM t"})).content
        except Exception as exc:  # noqa: BLE001 - the refusal is the result
            return f"refused: {exc}"

    assert asyncio.run(go(True)).splitlines() == ["x", "42"]
    denied = asyncio.run(go(False))
    assert denied.startswith("refused:") and "shell:exec:sqlite3" in denied
