"""Image content of a real MCP server's tool result (the SDK-built one, over stdio) reaches
the model as image parts through a headless run against FakeLLM: checked, at most four,
and a note for bytes that are no image."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from server_app import PNG

from aiagent.testing import FakeLLM, ToolCall, Turn


def _result(run_cli, project: Path, kind: str) -> list[dict]:  # type: ignore[no-untyped-def]
    script = [Turn(text="Looking.", tool_calls=[ToolCall("t__picture", {"kind": kind}, id="toolu_pic")]),
              Turn(text="Seen.")]
    with FakeLLM(script) as fake:
        env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}
        proc = run_cli("--headless", "--provider", "anthropic", "--model", "claude-sonnet-4-5",
                       "--prompt", "look", "--approve", "t__picture", cwd=project, env=env, timeout=120)
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Seen."
    block = sent[1]["json"]["messages"][-1]["content"][0]
    assert block["type"] == "tool_result" and block["tool_use_id"] == "toolu_pic"
    return block["content"] if isinstance(block["content"], list) else [{"type": "text", "text": block["content"]}]


def _image(data: bytes) -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": base64.b64encode(data).decode()}}


def test_mcp_image_goes_to_the_model(run_cli, project: Path) -> None:
    content = _result(run_cli, project, "ok")
    assert content == [{"type": "text", "text": "1 picture(s)"}, _image(PNG)]


def test_more_than_four_images_are_capped_with_a_note(run_cli, project: Path) -> None:
    content = _result(run_cli, project, "many")
    assert content[1:] == [_image(PNG)] * 4
    assert content[0]["text"] == ("5 picture(s)\n[image image/png: more than 4 images in one "
                                  "result, not sent]")


def test_broken_image_bytes_become_a_note(run_cli, project: Path) -> None:
    content = _result(run_cli, project, "broken")
    assert json.dumps(content).count('"image"') == 0
    assert content == [{"type": "text", "text": "a broken picture\n[image image/png: a damaged image "
                        "(Truncated File Read), not sent]"}]
