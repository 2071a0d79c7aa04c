"""``aiagent --headless -i FILE``, the real command against FakeLLM on loopback: each wire
carries the attached image in its own form (checked in the recorded requests); a model
without vision, a file that is no image, a huge image, a missing file and a symlink get a
one-line error naming the file and exit 2 with nothing sent; ``--continue`` sends the
image again from the stored session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.images.imagefiles import VISION_MODEL, b64, provider_env, write_image

from aiagent.testing import FakeLLM, Turn


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


def _run(run_cli, project: Path, provider: str, *flags: str, model: str | None = None,  # type: ignore[no-untyped-def]
         prompt: str = "what is in the picture?") -> tuple[Any, list[dict[str, Any]]]:
    with FakeLLM([Turn(text="A red picture.")]) as fake:
        proc = run_cli("--headless", "--provider", provider, "--model", model or VISION_MODEL[provider],
                       "--prompt", prompt, *flags, cwd=project, env=provider_env(provider, fake))
        return proc, list(fake.requests)


def _ok(run_cli, project: Path, provider: str, *flags: str, **kw: Any) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    proc, sent = _run(run_cli, project, provider, *flags, **kw)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "A red picture."
    return sent


def test_anthropic_gets_base64_image_blocks_before_the_text(run_cli, project: Path) -> None:
    png = write_image(project / "red.png")
    jpg = write_image(project / "shot.jpg", "JPEG")
    sent = _ok(run_cli, project, "anthropic", "-i", "red.png", "--image", "shot.jpg")
    content = sent[0]["json"]["messages"][-1]["content"]
    assert content[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                      "data": b64(png)}}
    assert content[1] == {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                                      "data": b64(jpg)}}
    assert content[2]["type"] == "text" and content[2]["text"] == "what is in the picture?"


def test_openai_gets_image_url_parts_in_the_user_message(run_cli, project: Path) -> None:
    gif = write_image(project / "anim.gif", "GIF")
    sent = _ok(run_cli, project, "openai", "-i", str(project / "anim.gif"))
    assert sent[0]["json"]["messages"][-1] == {"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": f"data:image/gif;base64,{b64(gif)}"}},
        {"type": "text", "text": "what is in the picture?"}]}


def test_ollama_gets_the_images_field_on_the_message(run_cli, project: Path) -> None:
    webp = write_image(project / "pic.webp", "WEBP")
    sent = _ok(run_cli, project, "ollama", "-i", "pic.webp")
    assert sent[0]["json"]["messages"][-1] == {"role": "user", "content": "what is in the picture?",
                                               "images": [b64(webp)]}


def test_type_comes_from_the_bytes_not_the_name(run_cli, project: Path) -> None:
    jpg = write_image(project / "really-a-jpeg.png", "JPEG")
    sent = _ok(run_cli, project, "anthropic", "-i", "really-a-jpeg.png")
    source = sent[0]["json"]["messages"][-1]["content"][0]["source"]
    assert source["media_type"] == "image/jpeg" and source["data"] == b64(jpg)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "ollama"])
def test_model_without_vision_is_refused_before_sending(run_cli, project: Path, provider: str) -> None:
    write_image(project / "red.png")
    proc, sent = _run(run_cli, project, provider, "-i", "red.png", model="test-model")
    assert proc.returncode == 2
    assert sent == []
    assert proc.stderr.strip() == (
        f"aiagent: error: the model test-model does not accept images (set [provider.{provider}] "
        "vision = true if it does); nothing was sent")


def test_vision_setting_lets_an_unknown_model_see(run_cli, project: Path, clean_env: dict[str, str]) -> None:
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[provider.openai]\nvision = true\n")
    png = write_image(project / "red.png")
    sent = _ok(run_cli, project, "openai", "-i", "red.png", model="my-local-vlm")
    assert sent[0]["json"]["messages"][-1]["content"][0]["image_url"]["url"].endswith(b64(png))
    (config / "config.toml").write_text("[provider.openai]\nvision = false\n")
    proc, sent = _run(run_cli, project, "openai", "-i", "red.png", model="gpt-4o")
    assert proc.returncode == 2 and sent == [] and "does not accept images" in proc.stderr


def _refused(run_cli, project: Path, *flags: str) -> str:  # type: ignore[no-untyped-def]
    proc, sent = _run(run_cli, project, "anthropic", *flags)
    assert proc.returncode == 2, proc.stderr
    assert sent == []
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_text_named_png_is_refused(run_cli, project: Path) -> None:
    (project / "notes.png").write_text("not a picture at all\n")
    assert _refused(run_cli, project, "-i", "notes.png") == \
        "aiagent: error: --image notes.png: not a PNG, JPEG, GIF or WebP image; not attached"


def test_png_header_with_garbage_is_refused(run_cli, project: Path) -> None:
    (project / "fake.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 20)
    line = _refused(run_cli, project, "-i", "fake.png")
    assert line.startswith("aiagent: error: --image fake.png") and line.endswith("; not attached")


def test_huge_image_is_refused_without_reading_it(run_cli, project: Path) -> None:
    with (project / "huge.png").open("wb") as f:  # sparse: the size alone refuses it
        f.write(b"\x89PNG\r\n\x1a\n")
        f.truncate(50 * 1024 * 1024)
    assert _refused(run_cli, project, "-i", "huge.png") == (
        "aiagent: error: --image huge.png: 50.0 MB is more than 5.0 MB once encoded; not attached")


def test_too_many_pixels_is_refused(run_cli, project: Path) -> None:
    write_image(project / "wide.png", size=(9000, 2))
    assert _refused(run_cli, project, "-i", "wide.png") == (
        "aiagent: error: --image wide.png 9000x2: larger than 8000 pixels a side; not attached")


def test_missing_file_names_it(run_cli, project: Path) -> None:
    write_image(project / "red.png")
    assert _refused(run_cli, project, "-i", "red.png", "-i", "gone.png") == \
        "aiagent: error: --image gone.png: no such file"


def test_folder_is_refused(run_cli, project: Path) -> None:
    (project / "pics.png").mkdir()
    assert _refused(run_cli, project, "-i", "pics.png") == "aiagent: error: --image pics.png: not a file"


def test_symlink_to_an_image_is_followed_and_to_a_secret_refused(run_cli, project: Path,
                                                                tmp_path: Path) -> None:
    png = write_image(tmp_path / "elsewhere.png")
    (project / "link.png").symlink_to(tmp_path / "elsewhere.png")
    sent = _ok(run_cli, project, "anthropic", "-i", "link.png")
    assert sent[0]["json"]["messages"][-1]["content"][0]["source"]["data"] == b64(png)
    (tmp_path / "secret.txt").write_text("password=hunter2\n")
    (project / "secret.png").symlink_to(tmp_path / "secret.txt")
    assert _refused(run_cli, project, "-i", "secret.png") == \
        "aiagent: error: --image secret.png: not a PNG, JPEG, GIF or WebP image; not attached"
    (project / "dangling.png").symlink_to(tmp_path / "nowhere.png")
    assert _refused(run_cli, project, "-i", "dangling.png") == \
        "aiagent: error: --image dangling.png: no such file"


def test_image_without_a_prompt_is_a_usage_error(run_cli, project: Path) -> None:
    write_image(project / "red.png")
    proc = run_cli("--headless", "-i", "red.png", cwd=project)
    assert proc.returncode == 2 and "no prompt" in proc.stderr


def test_continue_sends_the_stored_image_again(run_cli, project: Path) -> None:
    png = write_image(project / "red.png")
    _ok(run_cli, project, "openai", "-i", "red.png")
    sent = _ok(run_cli, project, "openai", "--continue", prompt="and the colour?")
    messages = sent[0]["json"]["messages"]
    first = next(m for m in messages if m["role"] == "user" and isinstance(m["content"], list))
    assert first["content"][0]["image_url"]["url"] == f"data:image/png;base64,{b64(png)}"
    assert messages[-1] == {"role": "user", "content": "and the colour?"}


def test_continue_on_a_model_without_vision_reads_a_note(run_cli, project: Path) -> None:
    png = write_image(project / "red.png")
    _ok(run_cli, project, "anthropic", "-i", "red.png")
    sent = _ok(run_cli, project, "anthropic", "--continue", prompt="and now?", model="test-model")
    body = sent[0]["body"].decode()
    assert b64(png) not in body
    first = sent[0]["json"]["messages"][0]["content"]
    assert first[0] == {"type": "text", "text": "[image red.png: image/png 4x3, "
                        f"{len(png)} bytes: this model does not accept images]"}


def test_json_output_and_session_store_keep_working(run_cli, project: Path) -> None:
    write_image(project / "red.png")
    proc, _ = _run(run_cli, project, "anthropic", "-i", "red.png", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    assert '"answer": "A red picture."' in proc.stdout
    shown = run_cli("sessions", "list", cwd=project)
    assert shown.returncode == 0, shown.stderr


def test_markdown_export_names_the_image(run_cli, project: Path, clean_env: dict[str, str]) -> None:
    write_image(project / "red.png")
    _ok(run_cli, project, "anthropic", "-i", "red.png")
    code = ("from aiagent.infra.store.sessions import SessionStore; import os, sys; "
            "print(SessionStore.open(os.environ).list(sys.argv[1])[0].id)")
    sid = subprocess.run([sys.executable, "-c", code, str(project)], env=clean_env,
                         capture_output=True, text=True, check=True).stdout.strip()
    exported = run_cli("sessions", "export", sid, "--format", "md", cwd=project)
    assert exported.returncode == 0, exported.stderr
    assert "*Image attached: red.png (image/png)*" in exported.stdout
    assert "Tool result" not in exported.stdout
