"""Where MCP servers come from: [mcp.servers], .mcp.json (trusted folders only), user files;
broken entries are one line naming the file; odd names are refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from mcpkit import settings_for, stdio_entry

from aiagent.agent.tools.mcp.config import McpConfigError, discover, expand, parse_entry
from aiagent.agent.tools.mcp.tools import check_tool


def test_toml_and_json_sources_first_wins(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "a": {"command": "from-project"}, "b": {"type": "http", "url": "https://x/mcp"}}}))
    (home / ".claude.json").write_text(json.dumps({"projects": {}, "mcpServers": {
        "b": {"command": "from-user"}, "c": {"command": "${TOOL_BIN:-npx}", "args": ["-y", "${PKG}"]}}}))
    settings = settings_for(project, {"a": stdio_entry()}, user_files=[str(home / ".claude.json")])
    settings.trust.trusted = True
    found = discover(settings)
    assert found.problems == []
    assert found.servers["a"].command == sys.executable
    assert found.servers["b"].transport == "http" and found.servers["b"].source.endswith(".mcp.json")
    assert found.servers["c"].command == "npx" and found.servers["c"].args == ["-y", ""]


def test_project_mcp_json_needs_a_trusted_folder(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "sh"}}}))
    settings = settings_for(project, {})
    assert settings.trust is not None and not settings.trust.trusted
    assert discover(settings).servers == {}
    settings.trust.trusted = True
    assert list(discover(settings).servers) == ["x"]


@pytest.mark.parametrize(("text", "expected"), [
    ('{"mcpServers": {', "not valid JSON (line 1"),
    ("[1, 2]", 'expected a JSON object with "mcpServers"'),
    ('{"servers": {}}', 'no "mcpServers" object'),
    ('{"mcpServers": []}', '"mcpServers" must be an object'),
])
def test_invalid_mcp_json_is_one_line_naming_the_file(home: Path, tmp_path: Path, text: str,
                                                      expected: str) -> None:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".mcp.json").write_text(text)
    settings = settings_for(project, {"ok": stdio_entry()})
    settings.trust.trusted = True
    found = discover(settings)
    assert list(found.servers) == ["ok"]  # the rest still works
    assert len(found.problems) == 1 and "\n" not in found.problems[0]
    assert found.problems[0].startswith(str(project / ".mcp.json")) and expected in found.problems[0]


@pytest.mark.parametrize(("name", "entry", "expected"), [
    ("a__b", {"command": "x"}, "no '__'"),
    ("../x", {"command": "x"}, "1-32 letters"),
    ("x", {"command": ""}, '"command" must be a non-empty string'),
    ("x", {"command": "x", "args": "a b"}, '"args" must be a list'),
    ("x", {"type": "http", "url": "file:///etc/passwd"}, "must start with http"),
    ("x", {"command": "x", "url": "http://a"}, "unknown key 'url'"),
    ("x", {"type": "ws", "url": "ws://a"}, "not stdio, http or sse"),
])
def test_bad_entries(name: str, entry: dict[str, object], expected: str) -> None:
    with pytest.raises(McpConfigError, match=".*") as info:
        parse_entry(name, entry, "f.json", {})
    assert expected in str(info.value) and str(info.value).startswith("f.json: server")


def test_expand() -> None:
    env = {"A": "1", "EMPTY": ""}
    assert expand("${A}-${B:-two}-${EMPTY:-d}-${NONE}", env) == "1-two-d-"


@pytest.mark.parametrize(("tool", "schema", "ok"), [
    ("read", {"type": "object", "properties": {}}, True),
    ("with space", {"type": "object"}, False),
    ("ünïcode", {"type": "object"}, False),
    ("x" * 70, {"type": "object"}, False),
    ("list", {"type": "array"}, False),
    ("broken", {"type": "object", "properties": {"a": {"type": 5}}}, False),
])
def test_tool_names_and_schemas_from_a_server_are_checked(tool: str, schema: object, ok: bool) -> None:
    problem = check_tool("srv", SimpleNamespace(name=tool, input_schema=schema))
    assert (problem is None) is ok


def test_untrusted_project_config_cannot_add_servers(home: Path, tmp_path: Path) -> None:
    import tomli_w

    from aiagent.infra.config.settings import Settings

    project = tmp_path / "p"
    (project / ".agent").mkdir(parents=True)
    (project / ".agent" / "config.toml").write_text(tomli_w.dumps(
        {"mcp": {"servers": {"evil": {"command": "sh"}}}, "tools": {"web": {"allow_private": True}}}))
    settings = Settings.load(project)
    assert discover(settings).servers == {}
    assert settings.tools.web.allow_private is False
    assert "mcp.servers" in settings.trust.ignored_keys


def test_cli_add_list_remove(tmp_path: Path, clean_env: dict[str, str]) -> None:
    aiagent = str(Path(sys.executable).with_name("aiagent"))

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([aiagent, "mcp", *args], cwd=tmp_path, env=clean_env,
                              capture_output=True, text=True, timeout=60)

    added = cli("add", "fs", "--env", "K=V", "--", "npx", "-y", "server-fs", ".")
    assert added.returncode == 0, added.stderr
    user_file = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "mcp.json"
    assert json.loads(user_file.read_text())["mcpServers"]["fs"] == {
        "command": "npx", "args": ["-y", "server-fs", "."], "env": {"K": "V"}}
    assert cli("add", "web", "--url", "https://example.com/mcp", "--scope", "project").returncode == 0
    listed = cli("list").stdout
    assert "fs\tstdio\tnpx -y server-fs ." in listed and "web\thttp\thttps://example.com/mcp" in listed
    dup = cli("add", "fs", "--", "x")
    assert dup.returncode == 2 and dup.stderr.count("\n") == 1 and "exists" in dup.stderr
    assert cli("remove", "fs").returncode == 0
    assert "fs" not in json.loads(user_file.read_text())["mcpServers"]
    user_file.write_text("{oops")
    broken = cli("list")
    assert broken.returncode == 2
    assert broken.stderr.startswith(f"aiagent: error: {user_file}: not valid JSON")


def test_cli_test_starts_the_server(tmp_path: Path, clean_env: dict[str, str]) -> None:
    aiagent = str(Path(sys.executable).with_name("aiagent"))
    cfg = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    cfg.mkdir(parents=True)
    (cfg / "mcp.json").write_text(json.dumps({"mcpServers": {
        "t": stdio_entry(), "gone": {"command": "/no/such/server"}}}))
    ok = subprocess.run([aiagent, "mcp", "test", "t"], cwd=tmp_path, env=clean_env,
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "tool t__echo" in ok.stdout and "prompt review" in ok.stdout
    assert "resource note://hello" in ok.stdout
    bad = subprocess.run([aiagent, "mcp", "test", "gone"], cwd=tmp_path, env=clean_env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr == ("aiagent: error: MCP server gone could not start: program not found: "
                          "/no/such/server\n")
