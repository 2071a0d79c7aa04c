"""The pieces of "images in": the stored form of an attached image reads back equal, the
token estimate counts it, each wire converts it (and without vision writes a note), and
the attachment checks refuse what is not a small real image."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.images.imagefiles import b64, image_bytes

from aiagent.agent.core.images import (
    ImageInputError,
    check_count,
    decode_image,
    image_block,
    load_image,
    user_message,
    vision_refusal,
)
from aiagent.agent.core.tokens import IMAGE_TOKENS, message_tokens
from aiagent.contracts.messages import ImageBlock, Message, TextBlock
from aiagent.infra.providers import anthropic, ollama, openai
from aiagent.infra.store.messages import dumps, loads


def _message() -> Message:
    return user_message("what is it?", [image_block(image_bytes(), "red.png")])


def test_stored_form_reads_back_equal() -> None:
    message = _message()
    again = loads("user", dumps(message))
    assert again == message
    assert isinstance(again.content[0], ImageBlock) and again.content[0].name == "red.png"
    assert again.text == "what is it?"


def test_token_estimate_counts_the_image() -> None:
    with_image, without = _message(), Message.user("what is it?")
    assert message_tokens(with_image) - message_tokens(without) >= IMAGE_TOKENS


def test_wires_with_and_without_vision() -> None:
    message = _message()
    data = message.attached[0].image.data
    assert anthropic.convert_messages([message], vision=True)[0]["content"][0]["source"]["data"] == data
    note = anthropic.convert_messages([message], vision=False)[0]["content"][0]["text"]
    assert note.startswith("[image red.png: image/png 4x3") and note.endswith("this model does not accept images]")
    assert openai.convert_messages([message], vision=True)[0]["content"][0]["image_url"]["url"] \
        == f"data:image/png;base64,{data}"
    plain = openai.convert_messages([message], vision=False)[0]
    assert plain["content"].startswith("[image red.png") and plain["content"].endswith("\nwhat is it?")
    assert ollama.convert_messages([message], vision=True)[0]["images"] == [data]
    assert "images" not in ollama.convert_messages([message], vision=False)[0]


def test_checks(tmp_path: Path) -> None:
    with pytest.raises(ImageInputError, match="not a PNG, JPEG, GIF or WebP image"):
        image_block(b"GIF89a but not really", "x.gif")
    with pytest.raises(ImageInputError, match="no such file"):
        load_image(tmp_path / "none.png")
    assert decode_image("data:image/png;base64," + b64(image_bytes()), "a.png").image.media_type == "image/png"
    with pytest.raises(ImageInputError, match="at most 8 in one prompt"):
        check_count([image_block(image_bytes(), "a.png")] * 9)
    assert user_message("hi").content == [TextBlock("hi")]


def test_vision_refusal_asks_the_provider() -> None:
    class Seeing:
        name = "openai"

        def vision(self, model: str) -> bool:
            return model == "eyes"

    assert vision_refusal(Seeing(), "eyes") == ""
    assert "set [provider.openai] vision = true" in vision_refusal(Seeing(), "blind")
    assert vision_refusal(object(), "any") == ""  # a provider that cannot tell: it answers
