"""Image files for the "images in" tests: small real PNG/JPEG/GIF/WebP files made with
Pillow, a big one, and what FakeLLM needs to stand in for each provider."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

from PIL import Image

from aiagent.testing import FakeLLM

VISION_MODEL = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4o", "ollama": "llava"}


def provider_env(provider: str, fake: FakeLLM) -> dict[str, str]:
    return {
        "anthropic": {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"},
        "openai": {"OPENAI_BASE_URL": fake.url + "/v1"},
        "ollama": {"OLLAMA_HOST": fake.url},
    }[provider]


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (4, 3), noise: bool = False) -> bytes:
    img = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3)) if noise \
        else Image.new("RGB", size, (200, 30, 30))
    buf = io.BytesIO()
    options = {"compress_level": 0} if fmt == "PNG" and noise else {}
    img.save(buf, fmt, **options)
    return buf.getvalue()


def write_image(path: Path, fmt: str = "PNG", **kwargs: object) -> bytes:
    data = image_bytes(fmt, **kwargs)  # type: ignore[arg-type]
    path.write_bytes(data)
    return data


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
