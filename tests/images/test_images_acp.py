"""Images in ACP prompts: the real ``aiagent acp`` advertises ``promptCapabilities.image``,
sends an ``image`` block of ``session/prompt`` to the model (checked in FakeLLM's recorded
request), refuses a bad one with invalid params (nothing sent, the session goes on), and
replays the stored image on ``session/load``."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest
from acp import RequestError, schema
from tests.acp.peer import Recorder, acp_peer, project_dir
from tests.images.imagefiles import b64, image_bytes

from aiagent.testing import FakeLLM, Turn


def _prompt(text: str, data: str, mime: str = "image/png", uri: str | None = None) -> list[object]:
    return [schema.TextContentBlock(type="text", text=text),
            schema.ImageContentBlock(type="image", mime_type=mime, data=data, uri=uri)]


def test_image_block_reaches_the_model_and_is_replayed(tmp_path: Path) -> None:
    png = image_bytes()
    project = project_dir(tmp_path)

    async def first(fake: FakeLLM) -> str:
        async with acp_peer(tmp_path, fake, project=project) as peer:
            init = await peer.initialize()
            assert init.agent_capabilities.prompt_capabilities.image is True
            sid = await peer.new_session()
            response = await peer.conn.prompt(session_id=sid, prompt=_prompt(
                "what is this?", b64(png), uri=f"file://{project}/red.png"))
            assert response.stop_reason == "end_turn"
            return sid

    async def load(fake: FakeLLM, sid: str) -> Recorder:
        client = Recorder()
        async with acp_peer(tmp_path, fake, client, project=project) as peer:
            await peer.initialize()
            await peer.conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        return client

    with FakeLLM([Turn(text="A red square.")]) as fake:
        sid = asyncio.run(first(fake))
        content = fake.requests[0]["json"]["messages"][-1]["content"]
        client = asyncio.run(load(fake, sid))
    assert content[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                      "data": b64(png)}}
    assert content[1]["text"] == "what is this?"
    user = [u.content for _, u in client.updates if u.session_update == "user_message_chunk"]
    images = [c for c in user if c.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png" and images[0].data == b64(png)


@pytest.mark.parametrize("data, why", [
    (base64.b64encode(b"just some text, not a picture").decode(), "not a PNG, JPEG, GIF or WebP image"),
    ("%%% not base64 %%%", "not valid base64"),
    (base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(5 * 1024 * 1024)).decode(), "more than 5.0 MB once encoded"),
])
def test_bad_image_is_invalid_params_and_the_session_goes_on(tmp_path: Path, data: str, why: str) -> None:
    async def main(fake: FakeLLM) -> None:
        async with acp_peer(tmp_path, fake) as peer:
            await peer.initialize()
            sid = await peer.new_session()
            with pytest.raises(RequestError) as caught:
                await peer.conn.prompt(session_id=sid, prompt=_prompt("look", data))
            assert caught.value.code == -32602
            assert why in str(caught.value.data)
            assert fake.requests == []
            response = await peer.prompt(sid, "just text then")
            assert response.stop_reason == "end_turn"

    with FakeLLM([Turn(text="Fine.")]) as fake:
        asyncio.run(main(fake))
        assert fake.requests[0]["json"]["messages"][-1]["content"][-1]["text"] == "just text then"


def test_model_without_vision_is_told_not_silently_dropped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "aiagent"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[provider.anthropic]\nvision = false\n")

    async def main(fake: FakeLLM) -> None:
        async with acp_peer(tmp_path, fake) as peer:
            await peer.initialize()
            sid = await peer.new_session()
            with pytest.raises(RequestError) as caught:
                await peer.conn.prompt(session_id=sid, prompt=_prompt("look", b64(image_bytes())))
            assert "does not accept images" in str(caught.value.data)

    with FakeLLM([Turn(text="never")]) as fake:
        asyncio.run(main(fake))
        assert fake.requests == []
