"""The Provider contract: one streaming call, provider-neutral events out.

A provider turns a :class:`CompletionRequest` into a stream of :data:`StreamEvent`. It
retries what is worth retrying itself (see ``wire.py``); when it starts a request over
after some events were already yielded (a stream cut mid-way), it first yields
:class:`Restart`, and the consumer drops whatever it had gathered of that response.
Failures that end the call are raised as :class:`ProviderError`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiagent.contracts.messages import Message, ToolUseBlock, Usage


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(slots=True)
class CompletionRequest:
    model: str
    system: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    max_tokens: int = 8192
    temperature: float | None = None


@dataclass(slots=True)
class ProviderConfig:
    """What a provider needs to connect. Built from settings; holds the API key."""

    base_url: str
    api_key: str | None = None
    api_key_env: str | None = None  # which variable the key should come from, for messages
    connect_timeout: float = 10.0
    idle_timeout: float = 120.0  # no byte for this long mid-stream = a cut stream
    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    max_retry_wait: float = 120.0  # a retry-after longer than this is not waited for
    extra_headers: dict[str, str] = field(default_factory=dict)
    # Bounds on what one response may cost (see wire.py); 0 turns a bound off.
    max_line_bytes: int = 8 * 1024 * 1024  # one SSE/NDJSON line or event
    max_body_bytes: int = 256 * 1024 * 1024  # one response body, after decompression
    max_output_chars: int = 1_000_000  # text and tool-call arguments in one response
    turn_timeout: float = 1800.0  # one response, retries included
    # The model's context window when known (config or the built-in table); when None the
    # server is asked once (llama.cpp's /props, /v1/models, Ollama's /api/show).
    context_window: int | None = None
    probe_limits: bool = True
    probe_timeout: float = 2.0
    min_output_tokens: int = 256  # max_tokens never goes below this, whatever the prompt
    # "auto" (sent explicitly: some servers ignore tools without it), "required", "none",
    # a tool's name (that tool is forced), or "" (not sent). A forced choice holds until
    # the model has called a tool, so a run can still finish.
    tool_choice: str = "auto"
    # False: ask for the whole answer at once (OpenAI wire only), for servers that cannot
    # stream tool calls; idle_timeout then has to cover the whole generation.
    stream: bool = True
    # Whether the model accepts images (attached by the user, or in tool results); None: the
    # built-in table decides (providers/vision.toml). Without vision a model reads a note for
    # each image of a tool, and a prompt with new attachments is refused (agent/core/images.py).
    vision: bool | None = None


# ---- stream events -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A complete tool call, arguments assembled and parsed."""

    block: ToolUseBlock


@dataclass(frozen=True, slots=True)
class UsageReport:
    usage: Usage


@dataclass(frozen=True, slots=True)
class Stop:
    """The response is complete. ``reason`` is normalised: end_turn, tool_use,
    max_tokens, stop_sequence, or the provider's own word when it is none of these."""

    reason: str


@dataclass(frozen=True, slots=True)
class Restart:
    """The provider is sending the request again; drop what this response gave so far."""

    reason: str
    attempt: int
    delay: float


StreamEvent = TextDelta | ToolUse | UsageReport | Stop | Restart


class Provider(Protocol):
    name: str

    def stream(self, req: CompletionRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None:
        """Release connections; the provider may be used again afterwards."""
        ...


# ---- errors --------------------------------------------------------------------------


def forced_choice(choice: str, req: CompletionRequest) -> str:
    """The tool choice for this request: a forcing choice ("required" or a tool name)
    turns to "auto" once the request follows tool results."""
    if choice in ("", "auto", "none"):
        return choice
    last = req.messages[-1] if req.messages else None
    following_tools = last is not None and last.role == "user" and any(
        getattr(b, "type", "") == "tool_result" for b in last.content
    )
    return "auto" if following_tools else choice


class ProviderError(Exception):
    """A provider call failed for good. The message is one line, fit for the user."""

    exit_code = 3

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class AuthError(ProviderError):
    """401/403: the key is missing or rejected."""


class ModelNotFoundError(ProviderError):
    """404: unknown model or endpoint."""


class ContextOverflowError(ProviderError):
    """400/413: the request is larger than the model's context window."""


class InvalidRequestError(ProviderError):
    """The server rejected the request itself (400/422, or a 500 saying it could not
    validate or parse it): sending it again cannot help, so it is never retried."""

    exit_code = 6


class StreamLimitError(ProviderError):
    """A response went past one of the stream bounds (line, body, output size)."""


class TurnTimeoutError(ProviderError):
    """No complete response within ``turn_timeout`` seconds (retries included)."""

    exit_code = 4


class RetryableError(ProviderError):
    """A failure worth another try (429, 5xx, connection lost, stream cut or stalled)."""

    def __init__(
        self, message: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after
