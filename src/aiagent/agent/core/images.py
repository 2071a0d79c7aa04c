"""Images the user attaches to a prompt: ``--image FILE``, a path pasted in the TUI, an
ACP ``image`` block, the web page's upload.

Every way in ends in :func:`image_block` (bytes) and so in the tool layer's checks
(``agent/tools/images.py``): the type is sniffed from the bytes (a ``.png`` that is text is
refused), the size is capped (``MAX_IMAGE_BASE64`` once encoded, ``MAX_SIDE`` pixels a
side), and only PNG, JPEG, GIF and WebP pass. What fails raises :class:`ImageInputError`,
one line naming the file; a front-end shows it (headless: exit 2) and sends nothing.

Whether the model can see images: ``[provider.X] vision`` when set, else the built-in
table of model names (``infra/providers/vision.toml``). A prompt with images for a model
without vision is refused before anything is sent (:func:`vision_refusal`).
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from aiagent.contracts.messages import (
    MAX_IMAGE_BASE64,
    ImageBlock,
    ImagePart,
    Message,
    TextBlock,
    human_size,
)

EXIT_USAGE = 2
SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
MAX_ATTACHED = 8  # images in one prompt


class ImageInputError(ValueError):
    """An attachment that cannot be sent; the message is one line naming it."""

    exit_code = EXIT_USAGE


def load_image(path: str | os.PathLike[str], cwd: Path | None = None) -> ImageBlock:
    """The image file at ``path`` (relative to ``cwd``); symlinks are followed: the user
    named the file and could read it anyway."""
    shown = os.fspath(path)
    full = Path(os.path.expanduser(shown))
    if not full.is_absolute() and cwd is not None:
        full = cwd / full
    try:
        if not full.exists():
            raise ImageInputError(f"{shown}: no such file")
        if not full.is_file():
            raise ImageInputError(f"{shown}: not a file")
        size = full.stat().st_size
        if _encoded(size) > MAX_IMAGE_BASE64:  # refused before reading it
            raise ImageInputError(_too_big(shown, size))
        data = full.read_bytes()
    except OSError as exc:
        raise ImageInputError(f"{shown}: {exc.strerror or exc}") from None
    return image_block(data, full.name, shown)


def image_block(data: bytes, name: str, shown: str | None = None) -> ImageBlock:
    """``data`` as an attachment called ``name``, or :class:`ImageInputError`."""
    from aiagent.agent.tools.images import check_image

    shown = shown or name or "image"
    if _encoded(len(data)) > MAX_IMAGE_BASE64:
        raise ImageInputError(_too_big(shown, len(data)))
    part = check_image(data)
    if not isinstance(part, ImagePart):
        detail, why = part
        raise ImageInputError(f"{shown}{detail}: {why}; not attached")
    return ImageBlock(part, name)


def decode_image(data: str, name: str) -> ImageBlock:
    """An image sent as base64 (ACP, the web page); a ``data:`` URL prefix is allowed."""
    if data.startswith("data:") and "," in data:
        data = data.split(",", 1)[1]
    if _encoded(len(data) * 3 // 4) > MAX_IMAGE_BASE64 + 4:
        raise ImageInputError(_too_big(name, len(data) * 3 // 4))
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ImageInputError(f"{name}: its data is not valid base64; not attached") from None
    return image_block(raw, name)


def check_count(blocks: Sequence[ImageBlock]) -> None:
    if len(blocks) > MAX_ATTACHED:
        raise ImageInputError(f"{len(blocks)} images: at most {MAX_ATTACHED} in one prompt")


def user_message(text: str, images: Iterable[ImageBlock] = ()) -> Message:
    """The user's prompt: the images first (models read them best before the question),
    then the text."""
    blocks = [*images]
    return Message("user", [*blocks, TextBlock(text)] if blocks else [TextBlock(text)])


def vision_refusal(provider: object, model: str) -> str:
    """Why ``model`` on ``provider`` cannot take images ("" when it can)."""
    accepts = getattr(provider, "vision", None)
    if accepts is None or accepts(model):  # a provider that cannot tell: let it answer
        return ""
    name = getattr(provider, "name", "") or "X"
    return (f"the model {model} does not accept images (set [provider.{name}] vision = true "
            "if it does); nothing was sent")


def _encoded(size: int) -> int:
    return (size + 2) // 3 * 4


def _too_big(shown: str, size: int) -> str:
    return (f"{shown}: {human_size(size)} is more than {human_size(MAX_IMAGE_BASE64)} once "
            "encoded; not attached")
