"""A stored conversation → the ``session/update``s that show it again (``session/load``).

User text is replayed as user message chunks, the model's text as agent message chunks,
each tool call as a ``tool_call`` with its kind, title and paths, and each result as the
call's final ``tool_call_update``; each plan the model recorded (``update_plan``) is sent
again after its call, so the client ends with the last one. The stored text is replayed
verbatim.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acp import schema

from aiagent.agent.tools.plan import plans
from aiagent.contracts.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.tools import ToolEffect, effect_of
from aiagent.frontends.acp.updates import (
    Update,
    fenced,
    plan_update,
    text_chunk,
    text_content,
    title_of,
    tool_kind,
)


def replay(messages: list[Message], tools: Any) -> Iterator[Update]:
    recorded = {plan.id: plan for plan in plans(messages)}
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                if block.text:
                    yield text_chunk(block.text, user=message.role == "user")
            elif isinstance(block, ImageBlock):  # an image the user attached
                yield schema.UserMessageChunk(session_update="user_message_chunk", content=schema.ImageContentBlock(
                    type="image", mime_type=block.image.media_type, data=block.image.data))
            elif isinstance(block, ToolUseBlock):
                yield _call(block, tools)
            elif isinstance(block, ToolResultBlock):
                yield schema.ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=block.tool_use_id,
                    status="failed" if block.is_error else "completed",
                    content=[text_content(fenced(block.content))] if block.content else [],
                    raw_output=block.content)
                if block.tool_use_id in recorded:
                    yield plan_update(recorded[block.tool_use_id])


def _call(block: ToolUseBlock, tools: Any) -> Update:
    tool = tools.get(block.name) if tools is not None else None
    effect = effect_of(tool) if tool is not None else ToolEffect.of("execute")
    return schema.ToolCallStart(
        session_update="tool_call", tool_call_id=block.id,
        title=title_of(block.name, block.input, effect),
        kind=tool_kind(effect), status="in_progress", raw_input=block.input,  # type: ignore[arg-type]
        locations=[schema.ToolCallLocation(path=p) for p in effect.paths(block.input)])
