"""`sim_screenshot` through a real headless run against FakeLLM, with the fake `xcrun`
(fake_apple.py) writing the PNG: a model that accepts images gets the screenshot itself
beside its path and size; one that does not, and a file that is no valid PNG, get a note."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from aiagent.testing import FakeLLM, ToolCall, Turn

IPHONE16 = "7B1F2E3A-6C1D-4C22-9E0B-1A2B3C4D5E6F"


def _shot(run_cli, fake_apple, project: Path, model: str) -> dict:  # type: ignore[no-untyped-def]
    script = [Turn(text="Screenshot.", tool_calls=[ToolCall("sim_screenshot", {"output_path": "shot.png"},
                                                            id="toolu_shot")]),
              Turn(text="The app shows its start screen.")]
    with FakeLLM(script) as fake:
        env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456", **fake_apple.env()}
        proc = run_cli("--headless", "--provider", "anthropic", "--model", model, "--prompt",
                       "show me the app", "--approval-mode", "full-auto", cwd=project, env=env)
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The app shows its start screen."
    block: dict = sent[1]["json"]["messages"][-1]["content"][0]
    assert block["tool_use_id"] == "toolu_shot" and not block.get("is_error"), block
    return block


def test_screenshot_reaches_a_vision_model_as_an_image(run_cli, fake_apple, ios_project: Path) -> None:
    fake_apple.scenario(booted=[IPHONE16])
    block = _shot(run_cli, fake_apple, ios_project, "claude-sonnet-4-5")
    text, image = block["content"]
    info = json.loads(text["text"])
    assert (info["path"], info["width"], info["height"]) == (str(ios_project / "shot.png"), 2, 3)
    png = (ios_project / "shot.png").read_bytes()  # what the fake simctl wrote
    assert image == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": base64.b64encode(png).decode()}}


def test_screenshot_for_a_model_without_vision_is_a_note(run_cli, fake_apple, ios_project: Path) -> None:
    fake_apple.scenario(booted=[IPHONE16])
    block = _shot(run_cli, fake_apple, ios_project, "test-model")
    info, note = block["content"].rsplit("\n", 1)
    size = (ios_project / "shot.png").stat().st_size
    assert json.loads(info)["bytes"] == size
    assert note == f"[image image/png 2x3, {size} bytes: this model does not accept images]"


def test_broken_screenshot_is_a_note_with_its_path(run_cli, fake_apple, ios_project: Path) -> None:
    fake_apple.scenario(booted=[IPHONE16], screenshot="broken")
    block = _shot(run_cli, fake_apple, ios_project, "claude-sonnet-4-5")
    assert isinstance(block["content"], str)  # no image part
    info, note = block["content"].rsplit("\n", 1)
    assert json.loads(info)["bytes"] == (ios_project / "shot.png").stat().st_size
    assert note == "[image shot.png: not a PNG, JPEG, GIF or WebP image, not sent]"
