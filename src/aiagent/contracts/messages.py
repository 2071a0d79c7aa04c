"""Conversation data: messages made of typed content blocks, and token usage.

These are provider-neutral. Each provider translates them to and from its wire format.
Assistant content is kept exactly as the provider sent it (text verbatim, tool calls with
their raw argument string), so a resumed conversation sends the same bytes again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    """A tool call from the model.

    ``input`` is the parsed arguments. When the model sent arguments that are not a JSON
    object, ``input`` is empty and ``input_error`` says what was wrong; the loop turns that
    into an error result the model can read. ``raw_input`` keeps the argument text as sent.
    """

    id: str
    name: str
    input: dict[str, Any]
    raw_input: str | None = None
    input_error: str | None = None
    type: Literal["tool_use"] = "tool_use"


#: Most images one tool result carries, and the most base64 characters of one image
#: (Anthropic's API refuses images past 5 MB once encoded). More, or bigger, become a note.
MAX_IMAGES_PER_RESULT = 4
MAX_IMAGE_BASE64 = 5 * 1024 * 1024
NO_VISION = "this model does not accept images"


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image a tool returned: its media type, its bytes in base64 and its size in
    pixels (0 when unknown). Checked by the tool layer (see ``tools/images.py``) before it
    is made; each provider sends it its own way, or a note for a model without vision."""

    media_type: str
    data: str
    width: int = 0
    height: int = 0

    @property
    def nbytes(self) -> int:
        """The size of the decoded image."""
        return len(self.data) * 3 // 4 - self.data[-2:].count("=")

    def describe(self) -> str:
        """``image/png 1280x800, 34 KB``."""
        pixels = f" {self.width}x{self.height}" if self.width and self.height else ""
        return f"{self.media_type}{pixels}, {human_size(self.nbytes)}"

    def note(self, why: str) -> str:
        """The line a model reads instead of the image."""
        return f"[image {self.describe()}: {why}]"


def human_size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    return f"{round(n / 1024)} KB" if n >= 1024 else f"{n} bytes"


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    """A tool's answer: its text, and the images it returned (see :class:`ImagePart`)."""

    tool_use_id: str
    content: str
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"
    images: tuple[ImagePart, ...] = ()

    def text_with_notes(self, why: str) -> str:
        """The text with one note per image, for a model that cannot see them."""
        return "\n".join([self.content, *(image.note(why) for image in self.images)]).strip("\n") \
            if self.images else self.content


@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An image the user attached to a prompt (``--image``, a pasted path, ACP, the web
    page): checked by ``agent/core/images.py`` before it is made, like a tool's images.
    ``name`` is what the user attached (a file name), shown in transcripts and notes."""

    image: ImagePart
    name: str = ""
    type: Literal["image"] = "image"

    @property
    def images(self) -> tuple[ImagePart, ...]:
        return (self.image,)

    def note(self, why: str) -> str:
        """The line a model reads instead of the image (a resumed session on a model
        without vision: the image was refused when it was attached, see the loop)."""
        label = f"{self.name}: " if self.name else ""
        return f"[image {label}{self.image.describe()}: {why}]"


Block = TextBlock | ToolUseBlock | ToolResultBlock | ImageBlock
Role = Literal["user", "assistant"]


@dataclass(slots=True)
class Message:
    role: Role
    content: list[Block] = field(default_factory=list)

    @classmethod
    def user(cls, text: str) -> Message:
        return cls("user", [TextBlock(text)])

    @property
    def text(self) -> str:
        """All text blocks joined, in order."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def attached(self) -> list[ImageBlock]:
        """The images the user attached to this message."""
        return [b for b in self.content if isinstance(b, ImageBlock)]

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]


@dataclass(slots=True)
class Usage:
    """Tokens as reported by the provider for one request."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }
