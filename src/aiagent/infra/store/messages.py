"""Messages to and from their stored JSON form, exactly.

Every field of every block is kept (the assistant's text as received, a tool call's raw
argument text and the key order of its parsed arguments), so a message read back is equal
to the one written and a provider serialises it to the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

from aiagent.contracts.messages import (
    Block,
    ImageBlock,
    ImagePart,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)


def block_to_dict(block: Block) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolUseBlock):
        data: dict[str, Any] = {
            "type": "tool_use", "id": block.id, "name": block.name, "input": block.input,
        }
        if block.raw_input is not None:
            data["raw_input"] = block.raw_input
        if block.input_error is not None:
            data["input_error"] = block.input_error
        return data
    if isinstance(block, ImageBlock):  # the image itself: a resumed session sends it again
        return {"type": "image", "name": block.name, **_image_dict(block.image)}
    data = {
        "type": "tool_result", "tool_use_id": block.tool_use_id,
        "content": block.content, "is_error": block.is_error,
    }
    if block.images:  # only then: rows written before images existed read back the same
        data["images"] = [_image_dict(i) for i in block.images]
    return data


def _image_dict(image: ImagePart) -> dict[str, Any]:
    return {"media_type": image.media_type, "data": image.data, "width": image.width,
            "height": image.height}


def _image(data: dict[str, Any]) -> ImagePart:
    return ImagePart(str(data["media_type"]), str(data["data"]), int(data.get("width", 0)),
                     int(data.get("height", 0)))


def block_from_dict(data: dict[str, Any]) -> Block:
    kind = data.get("type")
    if kind == "text":
        return TextBlock(data["text"])
    if kind == "tool_use":
        return ToolUseBlock(
            data["id"], data["name"], data["input"], data.get("raw_input"), data.get("input_error")
        )
    if kind == "image":
        return ImageBlock(_image(data), str(data.get("name") or ""))
    if kind == "tool_result":
        images = tuple(_image(i) for i in data.get("images") or ())
        return ToolResultBlock(data["tool_use_id"], data["content"], bool(data.get("is_error")),
                               images=images)
    raise ValueError(f"unknown block type {kind!r}")


def dumps(message: Message) -> str:
    return json.dumps([block_to_dict(b) for b in message.content], ensure_ascii=False)


def loads(role: str, content: str) -> Message:
    if role not in ("user", "assistant"):
        raise ValueError(f"unknown role {role!r}")
    blocks = [block_from_dict(item) for item in json.loads(content)]
    return Message(role, blocks)  # type: ignore[arg-type]
