"""``aiagent mcp serve`` driven by the official MCP SDK client: every tool, progress, and
run_task against FakeLLM on loopback."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

from servekit import serving

from aiagent.testing import FakeLLM, ToolCall, Turn

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vulnerable-app"
TOOLS = {"run_task", "security_audit", "review_diff", "analyze_log", "build_wiki"}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def test_lists_the_tools_and_audits_the_example_offline(env: dict[str, str], tmp_path: Path) -> None:
    async def go() -> tuple[set[str], Any, list[Any]]:
        progress: list[Any] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, total, message))

        async with serving(EXAMPLE, env, tmp_path / "err") as session:
            names = {t.name for t in (await session.list_tools()).tools}
            result = await session.call_tool("security_audit", {"min_severity": "high"},
                                             progress_callback=on_progress)
        return names, result, progress

    names, result, progress = run(go())
    assert names == TOOLS
    assert not result.is_error, _text(result)
    report = result.structured_content
    assert report["summary"]["files_scanned"] > 0
    assert report["findings"], "the vulnerable app has high findings"
    assert {f["severity"] for f in report["findings"]} <= {"high", "critical"}
    assert progress and all(b[0] > a[0] for a, b in zip(progress, progress[1:], strict=False))
    assert "Traceback" not in (tmp_path / "err").read_text()


def test_analyze_log_text_and_path_without_a_model(env: dict[str, str], project: Path,
                                                   tmp_path: Path) -> None:
    async def go() -> tuple[Any, Any]:
        async with serving(project, env, tmp_path / "err") as session:
            by_text = await session.call_tool("analyze_log", {"text": (project / "app.log").read_text()})
            by_path = await session.call_tool("analyze_log", {"path": "app.log"})
        return by_text, by_path

    by_text, by_path = run(go())
    for result in (by_text, by_path):
        assert not result.is_error, _text(result)
        doc = result.structured_content
        assert doc["model"]["used"] is False
        assert doc["static"]["input"]["lines"] == 4
    assert by_path.structured_content["static"]["input"]["name"].endswith("app.log")


def test_review_diff_needs_a_model_unless_static_only(env: dict[str, str], project: Path,
                                                      tmp_path: Path) -> None:
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "first"], cwd=project, check=True)
    (project / "util.py").write_text("import os\n\ndef run(x):\n    os.system('ls ' + x)\n")

    async def go() -> tuple[Any, Any, Any]:
        async with serving(project, env, tmp_path / "err") as session:
            no_model = await asyncio.wait_for(session.call_tool("review_diff", {}), 60)
            static = await session.call_tool("review_diff", {"static_only": True})
            bad_ref = await session.call_tool("review_diff", {"base": "--output=/tmp/x"})
        return no_model, static, bad_ref

    no_model, static, bad_ref = run(go())
    assert no_model.is_error and "no model configured" in _text(no_model)
    assert not static.is_error, _text(static)
    assert [f["path"] for f in static.structured_content["files"]] == ["util.py"]
    assert bad_ref.is_error


def test_build_wiki_writes_inside_the_folder(env: dict[str, str], project: Path,
                                             tmp_path: Path) -> None:
    async def go() -> tuple[Any, list[Any]]:
        progress: list[Any] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(message)

        async with serving(project, env, tmp_path / "err") as session:
            result = await session.call_tool("build_wiki", {"out_dir": "site"},
                                             progress_callback=on_progress)
        return result, progress

    result, progress = run(go())
    assert not result.is_error, _text(result)
    assert result.structured_content["pages"] > 0
    assert (project / "site" / "index.md").is_file() or any((project / "site").rglob("*.md"))
    assert any("scan:" in (m or "") for m in progress)


def _fake_env(env: dict[str, str], fake: FakeLLM) -> dict[str, str]:
    return {**env, "OPENAI_BASE_URL": fake.url + "/v1", "AIAGENT_PROVIDER": "openai",
            "AIAGENT_MODEL": "fake"}


def test_run_task_answers_through_the_headless_path(env: dict[str, str], project: Path,
                                                    tmp_path: Path) -> None:
    script = [Turn(text="Reading.", tool_calls=[ToolCall("read_file", {"file_path": "util.py"})],
                   usage=(10, 5)),
              Turn(text="It adds two numbers.", usage=(20, 6))]

    async def go(fake: FakeLLM) -> tuple[Any, list[Any]]:
        progress: list[Any] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(message)

        async with serving(project, _fake_env(env, fake), tmp_path / "err") as session:
            result = await session.call_tool("run_task", {"prompt": "What does util.py do?",
                                                          "approval_mode": "read-only"},
                                             progress_callback=on_progress)
        return result, progress

    with FakeLLM(script) as fake:
        result, progress = run(go(fake))
        sent = fake.requests
    assert not result.is_error, _text(result)
    out = result.structured_content
    assert out["answer"] == "It adds two numbers."
    assert out["stop_reason"] == "completed" and out["exit_code"] == 0
    assert out["usage"]["input_tokens"] == 30 and out["approval_mode"] == "read-only"
    assert [c["name"] for c in out["tool_calls"]] == ["read_file"]
    assert "a + b" in json.dumps(sent[1]["json"])
    assert any("read_file" in (m or "") for m in progress)


def test_run_task_never_widens_the_servers_approval_mode(env: dict[str, str], project: Path,
                                                         tmp_path: Path) -> None:
    async def go(fake: FakeLLM) -> tuple[Any, Any]:
        async with serving(project, _fake_env(env, fake), tmp_path / "err",
                           "--approval-mode", "read-only") as session:
            wider = await session.call_tool("run_task", {"prompt": "x", "approval_mode": "full-auto"})
            default = await session.call_tool("run_task", {"prompt": "hi"})
        return wider, default

    with FakeLLM([Turn(text="hello")]) as fake:
        wider, default = run(go(fake))
        asked = len(fake.requests)
    assert wider.is_error and "wider than this server allows" in _text(wider)
    assert not default.is_error and default.structured_content["approval_mode"] == "read-only"
    assert asked == 1  # the refused call never reached the model


def test_run_task_tools_narrow_what_the_model_is_offered(env: dict[str, str], project: Path,
                                                         tmp_path: Path) -> None:
    config = Path(env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[agent]\ntools = ["read_file", "list_dir", "grep_files"]\n')

    async def go(fake: FakeLLM) -> tuple[Any, Any]:
        async with serving(project, _fake_env(env, fake), tmp_path / "err") as session:
            narrow = await session.call_tool("run_task", {"prompt": "hi", "tools": ["read_file"]})
            wider = await session.call_tool("run_task", {"prompt": "hi", "tools": ["shell"]})
        return narrow, wider

    with FakeLLM([Turn(text="ok")]) as fake:
        narrow, wider = run(go(fake))
        sent = fake.requests
    assert not narrow.is_error, _text(narrow)
    offered = [t["function"]["name"] for t in sent[0]["json"]["tools"]]
    assert offered == ["read_file"]
    assert wider.is_error and "'shell_command' is not offered" in _text(wider)
    assert len(sent) == 1
