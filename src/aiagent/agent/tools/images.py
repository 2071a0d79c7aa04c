"""Images a tool returns to the model: checked, bounded, or a note saying why not.

Only PNG, JPEG, GIF and WebP are sent (what the providers take). Pillow reads the header
and checks the file's structure without decoding the pixels (no decompression bomb); an
image past ``MAX_IMAGE_BASE64`` once encoded, larger than ``MAX_SIDE`` pixels a side, or
more than ``MAX_IMAGES_PER_RESULT`` in one result becomes a one-line note instead.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from pathlib import Path

from aiagent.contracts.messages import (
    MAX_IMAGE_BASE64,
    MAX_IMAGES_PER_RESULT,
    ImagePart,
    human_size,
)

FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
MAX_SIDE = 8000  # Anthropic refuses larger; others scale down anyway
MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")


def looks_like_image(head: bytes) -> bool:
    """The first bytes of a PNG, JPEG, GIF or WebP file."""
    return head.startswith(MAGIC) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")


def image_part(data: bytes, label: str, size: int | None = None) -> ImagePart | str:
    """``data`` as an :class:`ImagePart`, or a note (``[image LABEL: why]``) naming what is
    wrong. ``size``: the real size when ``data`` was not read because it is too big."""
    checked = check_image(data, size)
    if isinstance(checked, ImagePart):
        return checked
    detail, why = checked
    return f"[image {label}{detail}: {why}, not sent]"


def check_image(data: bytes, size: int | None = None) -> ImagePart | tuple[str, str]:
    """``data`` as an :class:`ImagePart`, or why not: (a detail such as the size, the
    reason), for a tool's note and a user's attachment alike."""
    size = len(data) if size is None else size
    data = drop_damaged_ancillary_chunks(data)
    if (size + 2) // 3 * 4 > MAX_IMAGE_BASE64:
        return f", {human_size(size)}", f"more than {human_size(MAX_IMAGE_BASE64)} once encoded"
    try:
        media_type, width, height = _inspect(data)
    except Exception as exc:  # Pillow raises many kinds for a broken file
        from PIL import Image, UnidentifiedImageError

        if isinstance(exc, Image.DecompressionBombError):
            return "", "too many pixels (a possible decompression bomb)"
        if isinstance(exc, UnidentifiedImageError):
            media_type, width, height = None, 0, 0
        else:
            return "", f"a damaged image ({_clip(str(exc))})"
    if media_type is None:
        return "", "not a PNG, JPEG, GIF or WebP image"
    if max(width, height) > MAX_SIDE:
        return f" {width}x{height}", f"larger than {MAX_SIDE} pixels a side"
    return ImagePart(media_type, base64.b64encode(data).decode("ascii"), width, height)


def drop_damaged_ancillary_chunks(data: bytes) -> bytes:
    """A PNG without its ancillary chunks (colour profile, text, EXIF…) whose checksum is
    wrong, as libpng and browsers treat them; any other input unchanged. A damaged critical
    chunk (header, pixels) stays, and the check below refuses the image."""
    import struct
    import zlib

    if not data.startswith(MAGIC[0]):
        return data
    kept, at, dropped = [data[:8]], 8, False
    while at + 12 <= len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        end = at + 12 + length
        if end > len(data):
            return data
        kind, body, (crc,) = data[at + 4:at + 8], data[at + 8:end - 4], struct.unpack(">I", data[end - 4:end])
        ancillary = bool(kind[0] & 0x20)
        if ancillary and zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            dropped = True
        else:
            kept.append(data[at:end])
        at = end
        if kind == b"IEND":
            break
    return b"".join(kept) if dropped else data


def _inspect(data: bytes) -> tuple[str | None, int, int]:
    import warnings

    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # MAX_SIDE decides
        with Image.open(io.BytesIO(data)) as img:
            media_type = FORMATS.get(img.format or "")
            width, height = img.size
            img.verify()  # structure and checksums, pixels not decoded
    return media_type, width, height


def _clip(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(slots=True)
class Images:
    """The images of one result, at most ``MAX_IMAGES_PER_RESULT``; ``notes`` say what
    was not sent and why."""

    parts: list[ImagePart] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, data: bytes, label: str, size: int | None = None) -> ImagePart | None:
        part = image_part(data, label, size)
        if isinstance(part, str):
            self.notes.append(part)
            return None
        if len(self.parts) >= MAX_IMAGES_PER_RESULT:
            self.notes.append(f"[image {label}: more than {MAX_IMAGES_PER_RESULT} images in one result, not sent]")
            return None
        self.parts.append(part)
        return part

    def add_file(self, path: Path, label: str) -> ImagePart | None:
        """The file's image; one too big to send is not read at all."""
        size = path.stat().st_size
        if (size + 2) // 3 * 4 > MAX_IMAGE_BASE64:
            return self.add(b"", label, size=size)
        return self.add(path.read_bytes(), label)

    def add_base64(self, data: str, label: str) -> ImagePart | None:
        try:
            raw = base64.b64decode(data, validate=True)
        except ValueError:
            self.notes.append(f"[image {label}: its data is not valid base64, not sent]")
            return None
        return self.add(raw, label)
