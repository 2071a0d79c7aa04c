"""Images in tool results, end to end: the real ``aiagent --headless`` reads a PNG with
``read_file`` against FakeLLM on loopback, and the request that follows carries the image
in each provider's own wire form; a model without vision, a huge image and bytes that are
no image get a one-line note instead; a resumed session sends the same image again."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from aiagent.testing import FakeLLM, ToolCall, Turn

VISION_MODEL = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4o", "ollama": "llava"}


def _env(provider: str, fake: FakeLLM) -> dict[str, str]:
    return {
        "anthropic": {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"},
        "openai": {"OPENAI_BASE_URL": fake.url + "/v1"},
        "ollama": {"OLLAMA_HOST": fake.url},
    }[provider]


def _png(path: Path, size: tuple[int, int] = (4, 3), noise: bool = False) -> bytes:
    img = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3)) if noise \
        else Image.new("RGB", size, (200, 30, 30))
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=0 if noise else 6)
    path.write_bytes(buf.getvalue())
    return buf.getvalue()


def _read(*paths: Path) -> list[Turn]:
    calls = [ToolCall("read_file", {"file_path": str(p)}, id=f"call_{i}") for i, p in enumerate(paths)]
    return [Turn(text="Looking.", tool_calls=calls), Turn(text="A red picture.")]


def _run(run_cli, project: Path, provider: str, script: list[Turn], *flags: str,  # type: ignore[no-untyped-def]
         model: str | None = None) -> list[dict[str, Any]]:
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--provider", provider, "--model", model or VISION_MODEL[provider],
                       "--prompt", "what is in the picture?", *flags, cwd=project, env=_env(provider, fake))
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "A red picture."
    return sent


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_anthropic_tool_result_holds_an_image_block(run_cli, project: Path) -> None:
    data = _png(project / "red.png")
    sent = _run(run_cli, project, "anthropic", _read(project / "red.png"))
    block = sent[1]["json"]["messages"][-1]["content"][0]
    assert block == {
        "type": "tool_result", "tool_use_id": "call_0", "cache_control": {"type": "ephemeral"},
        "content": [{"type": "text", "text": f"{project / 'red.png'}: image/png 4x3, {len(data)} bytes"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": _b64(data)}}],
    }


def test_openai_image_follows_the_tool_message_as_a_data_url(run_cli, project: Path) -> None:
    data = _png(project / "red.png")
    sent = _run(run_cli, project, "openai", _read(project / "red.png"))
    messages = sent[1]["json"]["messages"]
    assert messages[-2] == {"role": "tool", "tool_call_id": "call_0", "content":
                            f"{project / 'red.png'}: image/png 4x3, {len(data)} bytes\n"
                            f"[image image/png 4x3, {len(data)} bytes: attached in the next message]"}
    assert messages[-1] == {"role": "user", "content": [
        {"type": "text", "text": "[image from tool call call_0]"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{_b64(data)}"}}]}


def test_ollama_image_goes_in_the_images_field(run_cli, project: Path) -> None:
    data = _png(project / "red.png")
    sent = _run(run_cli, project, "ollama", _read(project / "red.png"))
    messages = sent[1]["json"]["messages"]
    assert messages[-2]["role"] == "tool" and messages[-2]["tool_call_id"] == "call_0"
    assert "attached in the next message" in messages[-2]["content"]
    assert messages[-1] == {"role": "user", "content": "[images from tool calls call_0]",
                            "images": [_b64(data)]}


@pytest.mark.parametrize("provider", ["anthropic", "openai", "ollama"])
def test_model_without_vision_reads_a_note(run_cli, project: Path, provider: str) -> None:
    data = _png(project / "red.png")
    sent = _run(run_cli, project, provider, _read(project / "red.png"), model="test-model")
    assert _b64(data) not in sent[1]["body"].decode()
    note = f"[image image/png 4x3, {len(data)} bytes: this model does not accept images]"
    assert note in sent[1]["body"].decode()
    assert sent[1]["json"]["messages"][-1]["role"] in ("user", "tool")
    if provider != "anthropic":
        assert sent[1]["json"]["messages"][-1]["role"] == "tool"  # no extra user message


def test_vision_setting_overrides_the_table(run_cli, project: Path, clean_env: dict[str, str]) -> None:
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True)
    data = _png(project / "red.png")
    (config / "config.toml").write_text("[provider.openai]\nvision = true\n")
    sent = _run(run_cli, project, "openai", _read(project / "red.png"), model="my-local-vlm")
    assert sent[1]["json"]["messages"][-1]["content"][1]["image_url"]["url"].endswith(_b64(data))
    (config / "config.toml").write_text("[provider.openai]\nvision = false\n")
    sent = _run(run_cli, project, "openai", _read(project / "red.png"), model="gpt-4o")
    assert _b64(data) not in sent[1]["body"].decode() and "does not accept images" in sent[1]["body"].decode()


def test_huge_image_is_a_note_and_a_small_one_beside_it_goes(run_cli, project: Path) -> None:
    big = _png(project / "big.png", (1300, 1100), noise=True)  # ~4.3 MB: past 5 MB once encoded
    small = _png(project / "red.png")
    sent = _run(run_cli, project, "anthropic", _read(project / "big.png", project / "red.png"))
    big_result, small_result = sent[1]["json"]["messages"][-1]["content"][:2]
    size = f"{len(big) / (1024 * 1024):.1f} MB"
    assert big_result["content"] == f"[image big.png, {size}: more than 5.0 MB once encoded, not sent]"
    assert small_result["content"][1]["source"]["data"] == _b64(small)
    assert len(sent[1]["body"]) < 100_000


def test_malformed_image_is_a_note_and_the_run_goes_on(run_cli, project: Path) -> None:
    (project / "fake.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"this is not a picture" * 10)
    good = _png(project / "red.png")
    damaged = bytearray(good)
    damaged[-20] ^= 0xFF  # inside the image data: its checksum no longer matches
    (project / "damaged.png").write_bytes(bytes(damaged))
    sent = _run(run_cli, project, "anthropic",
                _read(project / "fake.png", project / "damaged.png", project / "red.png"))
    results = sent[1]["json"]["messages"][-1]["content"]
    assert results[0]["content"].startswith("[image fake.png: ") and results[0]["content"].endswith(", not sent]")
    assert results[1]["content"].startswith("[image damaged.png: a damaged image (")
    assert not results[0].get("is_error") and not results[1].get("is_error")
    assert results[2]["content"][1]["source"]["data"] == _b64(good)


def test_text_files_still_read_as_text(run_cli, project: Path) -> None:
    (project / "notes.png.txt").write_text("just words\n")
    sent = _run(run_cli, project, "anthropic", _read(project / "notes.png.txt"))
    assert sent[1]["json"]["messages"][-1]["content"][0]["content"] == "L1: just words"


def test_resumed_session_sends_the_image_again(run_cli, project: Path) -> None:
    data = _png(project / "red.png")
    first = _run(run_cli, project, "anthropic", _read(project / "red.png"))
    with FakeLLM([Turn(text="A red picture.")]) as fake:
        proc = run_cli("--headless", "--provider", "anthropic", "--model", VISION_MODEL["anthropic"],
                       "--continue", "-p", "and again?", cwd=project, env=_env("anthropic", fake))
        again = fake.requests
    assert proc.returncode == 0, proc.stderr
    before = first[1]["json"]["messages"][-1]["content"][0]
    history = again[0]["json"]["messages"]
    resumed = next(b for m in history if isinstance(m["content"], list)
                   for b in m["content"] if b.get("type") == "tool_result")
    before.pop("cache_control", None)
    assert resumed == before and resumed["content"][1]["source"]["data"] == _b64(data)
