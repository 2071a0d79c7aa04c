"""The checks of tools/images.py on real image files made with Pillow: format, size in
pixels, the caps (per image, per result) and broken or hostile input as a note."""

from __future__ import annotations

import base64
import io
import struct
import time
import zlib

from PIL import Image

from aiagent.agent.tools.images import Images, image_part
from aiagent.contracts.messages import ImagePart


def _image(fmt: str, size: tuple[int, int] = (3, 2)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (9, 9, 9)).save(buf, fmt)
    return buf.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def test_formats_are_recognised() -> None:
    for fmt, media in (("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")):
        part = image_part(_image(fmt), "x")
        assert isinstance(part, ImagePart) and (part.media_type, part.width, part.height) == (media, 3, 2)


def test_other_formats_and_garbage_are_notes() -> None:
    assert image_part(_image("BMP"), "x.bmp") == "[image x.bmp: not a PNG, JPEG, GIF or WebP image, not sent]"
    assert image_part(b"", "empty.png") == "[image empty.png: not a PNG, JPEG, GIF or WebP image, not sent]"


def test_a_giant_declared_size_is_refused_without_decoding() -> None:
    """A PNG whose header claims 100000x100000 pixels (a decompression bomb) is a note, fast."""
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\0" * 1000)) \
        + _chunk(b"IEND", b"")
    start = time.monotonic()
    note = image_part(bomb, "bomb.png")
    assert note == "[image bomb.png: too many pixels (a possible decompression bomb), not sent]"
    assert time.monotonic() - start < 5
    wide = image_part(_image("PNG", (8001, 1)), "wide.png")
    assert wide == "[image wide.png 8001x1: larger than 8000 pixels a side, not sent]"


def test_at_most_four_images_and_bad_base64() -> None:
    images = Images()
    png = _image("PNG")
    for i in range(5):
        images.add(png, f"p{i}.png")
    images.add_base64("not base64!!", "image/png")
    images.add_base64(base64.b64encode(png).decode(), "image/png")
    assert len(images.parts) == 4
    assert images.notes == ["[image p4.png: more than 4 images in one result, not sent]",
                            "[image image/png: its data is not valid base64, not sent]",
                            "[image image/png: more than 4 images in one result, not sent]"]


def test_too_big_is_refused_before_reading() -> None:
    note = image_part(b"", "big.png", size=4_000_000)
    assert note == "[image big.png, 3.8 MB: more than 5.0 MB once encoded, not sent]"
    assert isinstance(image_part(_image("PNG"), "ok.png"), ImagePart)


def _with_chunk_after_header(png: bytes, chunk: bytes) -> bytes:
    header_end = 8 + 12 + 13  # signature, then IHDR (13 bytes of data)
    return png[:header_end] + chunk + png[header_end:]


def test_a_damaged_ancillary_chunk_is_dropped_like_browsers_do() -> None:
    """The MCP reference server's tiny image has an iCCP chunk with a wrong checksum: the
    image is still sent, without that chunk; a damaged pixel chunk is still refused."""
    good = _image("PNG")
    bad_crc = bytearray(_chunk(b"iCCP", b"profile\x00\x00" + b"x" * 40))
    bad_crc[-1] ^= 0xFF
    part = image_part(_with_chunk_after_header(good, bytes(bad_crc)), "icc.png")
    assert isinstance(part, ImagePart) and (part.width, part.height) == (3, 2)
    assert base64.b64decode(part.data) == good  # the damaged chunk left, nothing else
    idat_at = good.index(b"IDAT") - 4
    broken = bytearray(good)
    broken[idat_at + 8] ^= 0xFF  # the first byte of the pixel data: its checksum no longer holds
    assert isinstance(image_part(bytes(broken), "pixels.png"), str)
