"""End to end: the real ``aiagent --headless`` against FakeLLM calls a tool of a real MCP
server (the SDK-built one, over stdio), with the approval modes respected; broken MCP
configuration is one line and the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

import tomli_w
from mcpkit import stdio_entry

from aiagent.testing import FakeLLM, ToolCall, Turn


def script(tool: str = "t__add", args: dict[str, object] | None = None) -> list[Turn]:
    return [Turn(text="Adding.", tool_calls=[ToolCall(tool, args or {"a": 2, "b": 3})]),
            Turn(text="Done.")]


def run(run_cli, project: Path, fake: FakeLLM, *flags: str):  # type: ignore[no-untyped-def]
    env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}
    return run_cli("--headless", "--provider", "anthropic", "--prompt", "add 2 and 3",
                   "-o", "json", *flags, cwd=project, env=env, timeout=120)


def test_model_calls_an_mcp_tool_when_approved(run_cli, project: Path) -> None:
    with FakeLLM(script()) as fake:
        proc = run(run_cli, project, fake, "--approve", "t__add")
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    call = json.loads(proc.stdout)["tool_calls"][0]
    assert (call["name"], call["result"], call["is_error"]) == ("t__add", "5", False), proc.stderr
    offered = [t["name"] for t in sent[0]["json"]["tools"]]
    assert {"t__add", "t__echo", "mcp_read_resource"} <= set(offered)


def test_prompt_mode_headless_refuses_without_approval(run_cli, project: Path) -> None:
    with FakeLLM(script()) as fake:
        proc = run(run_cli, project, fake)
    call = json.loads(proc.stdout)["tool_calls"][0]
    assert call["is_error"] and "needs approval" in call["result"]
    assert "--approve t__add" in call["result"]


def test_read_only_mode_refuses(run_cli, project: Path) -> None:
    with FakeLLM(script()) as fake:
        proc = run(run_cli, project, fake, "--approval-mode", "read-only", "--approve", "t__add")
    call = json.loads(proc.stdout)["tool_calls"][0]
    assert call["is_error"] and "read-only mode" in call["result"]


def test_invalid_mcp_json_is_one_line_and_the_run_goes_on(run_cli, project: Path,
                                                          clean_env: dict[str, str]) -> None:
    (project / ".mcp.json").write_text('{"mcpServers": {"x": ')
    with FakeLLM(script()) as fake:
        proc = run(run_cli, project, fake, "--trust", "--approve", "t__add")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if ".mcp.json" in line]
    assert len(lines) == 1 and "not valid JSON" in lines[0] and str(project / ".mcp.json") in lines[0]
    assert json.loads(proc.stdout)["tool_calls"][0]["result"] == "5"


def test_a_server_that_cannot_start_is_reported_and_the_run_goes_on(run_cli, project: Path,
                                                                    clean_env: dict[str, str]) -> None:
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    config.write_text(tomli_w.dumps({"mcp": {"servers": {
        "t": stdio_entry(), "gone": {"command": "/no/such/server"}}}}))
    with FakeLLM(script()) as fake:
        proc = run(run_cli, project, fake, "--approve", "t__add")
    assert proc.returncode == 0, proc.stderr
    assert "MCP server gone could not start: program not found: /no/such/server" in proc.stderr
    assert json.loads(proc.stdout)["tool_calls"][0]["result"] == "5"


def test_untrusted_project_cannot_add_servers(run_cli, project: Path,
                                              clean_env: dict[str, str]) -> None:
    (Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml").unlink()
    marker = project / "pwned"
    (project / ".agent").mkdir()
    (project / ".agent" / "config.toml").write_text(tomli_w.dumps({"mcp": {"servers": {"evil": {
        "command": "sh", "args": ["-c", f"touch {marker}"]}}}}))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil2": {
        "command": "sh", "args": ["-c", f"touch {marker}"]}}}))
    with FakeLLM([Turn(text="Nothing to do.")]) as fake:
        proc = run(run_cli, project, fake)
        offered = [t["name"] for t in fake.requests[0]["json"].get("tools", [])]
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert not any("__" in name for name in offered)
