"""Calling the Apple tools exactly as the loop does: schema validation, then ``Tool.run``
with a real :class:`ToolContext` on a real workspace folder (the registry is built from the
modules' ``TOOLS`` lists; `aiagent tools run` and headless runs reach the same classes through
``tools/apple/tools.toml``)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from aiagent.agent.tools.base import ToolRegistry, validate_args
from aiagent.contracts.tools import ToolContext, ToolResult

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "ios-app"
FIXTURES = Path(__file__).parent / "fixtures"

# A small Swift package (a library using swift-log, and its tests) for the swift_* tools.
KIT_PACKAGE = '''// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Kit",
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
    ],
    targets: [
        .target(name: "Kit", dependencies: [.product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "KitTests", dependencies: ["Kit"]),
    ]
)
'''


def registry() -> ToolRegistry:
    from aiagent.agent.tools.apple import assets, datamodel, discovery, signing, swiftpm

    reg = ToolRegistry(lazy={})
    for module in (assets, datamodel, discovery, signing, swiftpm):
        for cls in module.TOOLS:
            reg.register(cls())
    return reg


def call(workspace: Path, name: str, args: dict[str, Any]) -> ToolResult:
    tool = registry().get(name)
    assert tool is not None, name
    problem = validate_args(tool, args)
    if problem:
        return ToolResult(problem, is_error=True)
    events: list[Any] = []
    ctx = ToolContext(workspace=workspace, call_id="t", emit=events.append)
    return asyncio.run(tool.run(args, ctx))


def ok_json(workspace: Path, name: str, args: dict[str, Any]) -> Any:
    result = call(workspace, name, args)
    assert not result.is_error, result.content
    return json.loads(result.content)


def err(workspace: Path, name: str, args: dict[str, Any]) -> str:
    result = call(workspace, name, args)
    assert result.is_error, result.content
    return result.content


def copy_example(tmp_path: Path) -> Path:
    dest = tmp_path / "ios-app"
    shutil.copytree(EXAMPLE, dest)
    return dest


def fake_program(bin_dir: Path, name: str, script: str) -> Path:
    """An executable ``name`` in ``bin_dir`` running the given Python script body."""
    import sys

    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / name
    path.write_text(f"#!{sys.executable}\nimport os, sys, pathlib\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def replay(bin_dir: Path, name: str, table: dict[str, tuple[int, str, str]]) -> Path:
    """A fake ``name`` that prints recorded output chosen by its first arguments and logs
    its argv to ``bin_dir/<name>.argv`` (one JSON line per call)."""
    data = json.dumps(table)
    script = (
        "import json\n"
        f"table = json.loads({data!r})\n"
        f"with open({str(bin_dir / (name + '.argv'))!r}, 'a') as log: log.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        "key = next((k for k in table if ' '.join(sys.argv[1:]).startswith(k)), None)\n"
        "if key is None:\n"
        "    sys.stderr.write('fake: no recording for ' + ' '.join(sys.argv[1:]) + '\\n'); sys.exit(64)\n"
        "code, out, errtext = table[key]\n"
        "def text(v):\n"
        f"    return pathlib.Path({str(FIXTURES)!r}, v[1:]).read_text() if v.startswith('@') else v\n"
        "sys.stdout.write(text(out)); sys.stderr.write(text(errtext)); sys.exit(code)\n"
    )
    return fake_program(bin_dir, name, script)


def calls(bin_dir: Path, name: str) -> list[list[str]]:
    log = bin_dir / f"{name}.argv"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def path_with(bin_dir: Path) -> str:
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"


def tool_results(request: dict[str, Any]) -> list[tuple[str, bool]]:
    """(text, is_error) of every tool result in a FakeLLM-recorded Anthropic request."""
    out = []
    for message in request["json"]["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
                out.append((text, bool(block.get("is_error"))))
    return out
