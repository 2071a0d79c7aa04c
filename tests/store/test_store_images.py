"""Tool results with images are stored verbatim in SQLite and read back equal; rows
written before images existed read back the same."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image

from aiagent.contracts.messages import ImagePart, Message, ToolResultBlock, ToolUseBlock
from aiagent.infra.store.messages import dumps, loads
from aiagent.infra.store.sessions import SessionStore


def _png() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (5, 7), (1, 2, 3)).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def test_images_round_trip_through_the_store(tmp_path: Path) -> None:
    store = SessionStore.open(path=tmp_path / "db" / "aiagent.db")
    s = store.create("/w", provider="anthropic", model="m", title="t")
    image = ImagePart("image/png", _png(), 5, 7)
    msgs = [Message.user("look"),
            Message("assistant", [ToolUseBlock("t1", "read_file", {"file_path": "a.png"})]),
            Message("user", [ToolResultBlock("t1", "a.png: image/png 5x7", images=(image, image)),
                             ToolResultBlock("t2", "text only")])]
    for i, m in enumerate(msgs):
        store.append(s.id, i, m)
    back = store.messages(s.id)
    assert back == msgs
    assert back[2].content[0].images[0].data == image.data  # type: ignore[union-attr]


def test_rows_without_images_are_unchanged() -> None:
    plain = Message("user", [ToolResultBlock("t1", "out", True)])
    assert dumps(plain) == '[{"type": "tool_result", "tool_use_id": "t1", "content": "out", "is_error": true}]'
    assert loads("user", dumps(plain)) == plain


def test_image_part_describes_itself() -> None:
    part = ImagePart("image/png", base64.b64encode(b"x" * 34_000).decode(), 1280, 800)
    assert part.nbytes == 34_000
    assert part.note("this model does not accept images") == \
        "[image image/png 1280x800, 33 KB: this model does not accept images]"
