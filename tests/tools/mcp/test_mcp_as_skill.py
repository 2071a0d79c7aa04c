"""MCP servers appear as tool skills (FR-5.13): ``skill list`` shows ``mcp:NAME``, ``skill
info`` starts the server and lists its tools, ``skill disable/enable`` switch the server off
and on for the agent; a project that is not trusted cannot switch a server back on."""

from __future__ import annotations

import json
from pathlib import Path

from aiagent.testing import FakeLLM, Turn


def listed(run_cli, project: Path) -> dict[str, dict[str, object]]:  # type: ignore[no-untyped-def]
    proc = run_cli("skill", "list", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    return {row["name"]: row for row in json.loads(proc.stdout)}


def offered(run_cli, project: Path) -> set[str]:  # type: ignore[no-untyped-def]
    with FakeLLM([Turn(text="Hello.")]) as fake:
        env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}
        proc = run_cli("--headless", "--provider", "anthropic", "--prompt", "hi", "-o", "json",
                       cwd=project, env=env, timeout=120)
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    return {t["name"] for t in sent[0]["json"].get("tools", [])}


def test_a_server_is_listed_as_a_tool_skill(run_cli, project: Path) -> None:
    row = listed(run_cli, project)["mcp:t"]
    assert (row["types"], row["state"], row["backend"], row["source"]) == (["tool"], "enabled", "mcp", "mcp")
    plain = run_cli("skill", "list", cwd=project)
    assert any(line.startswith("mcp:t ") and "enabled" in line for line in plain.stdout.splitlines())


def test_skill_info_starts_the_server_and_lists_its_tools(run_cli, project: Path) -> None:
    proc = run_cli("skill", "info", "mcp:t", cwd=project, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "mcp:t (enabled): MCP server" in proc.stdout
    assert "tool t__add" in proc.stdout and "tool t__echo" in proc.stdout


def test_disable_and_enable_switch_the_servers_tools(run_cli, project: Path) -> None:
    assert {"t__add", "t__echo"} <= offered(run_cli, project)
    proc = run_cli("skill", "disable", "mcp:t", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert listed(run_cli, project)["mcp:t"]["state"] == "disabled"
    assert not {"t__add", "t__echo"} & offered(run_cli, project)
    assert run_cli("skill", "enable", "mcp:t", cwd=project).returncode == 0
    assert {"t__add", "t__echo"} <= offered(run_cli, project)


def test_an_unknown_server_is_one_line_and_exit_1(run_cli, project: Path) -> None:
    proc = run_cli("skill", "disable", "mcp:nope", cwd=project)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "aiagent: error: no skill named 'mcp:nope' (no such MCP server: see aiagent mcp list)"]
    info = run_cli("skill", "info", "mcp:nope", cwd=project)
    assert info.returncode == 1 and "no MCP server 'nope'" in info.stderr


def test_an_untrusted_project_cannot_switch_a_server_back_on(run_cli, project: Path) -> None:
    assert run_cli("skill", "disable", "--user", "mcp:t", cwd=project).returncode == 0
    state = project / ".agent" / "skills-state.json"
    state.parent.mkdir()
    state.write_text(json.dumps({"enabled": ["mcp:t"], "disabled": []}))
    assert listed(run_cli, project)["mcp:t"]["state"] == "disabled"
    assert not {"t__add", "t__echo"} & offered(run_cli, project)
    assert run_cli("trust", str(project), cwd=project).returncode == 0
    assert listed(run_cli, project)["mcp:t"]["state"] == "enabled"  # trusted: the project may
    assert {"t__add", "t__echo"} <= offered(run_cli, project)


def test_an_untrusted_projects_mcp_json_is_listed_as_untrusted(run_cli, project: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": {"command": "sh"}}}))
    row = listed(run_cli, project)["mcp:evil"]
    assert row["state"] == "untrusted"
    assert "evil__" not in " ".join(offered(run_cli, project))


def test_a_broken_mcp_json_is_a_broken_row(run_cli, project: Path) -> None:
    assert run_cli("trust", str(project), cwd=project).returncode == 0
    (project / ".mcp.json").write_text("{not json")
    rows = json.loads(run_cli("skill", "list", "--json", cwd=project).stdout)
    broken = [r for r in rows if r["state"] == "broken" and r["backend"] == "mcp"]
    assert len(broken) == 1 and ".mcp.json: not valid JSON" in broken[0]["error"]
    assert any(r["name"] == "mcp:t" and r["state"] == "enabled" for r in rows)
