"""The interactive app's small pieces of session state, each owned by one object with the
few methods the parts need (issue 26: no part sets the app's fields):

* :class:`NextMessage`: what goes to the model with the user's next message,
* :class:`ReadLoop`: whether to go on reading input, and what was typed ahead,
* :class:`ToolOutput`: the last turn's tool blocks (Ctrl-O shows them in full),
* :class:`ContextMeter`: how full the model's context was after the last turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiagent.contracts.messages import Usage
    from aiagent.frontends.tui.blocks import ToolBlock


class NextMessage:
    """``!command`` output, workflow results and notes (files undone) shared with the
    model along with the user's next message."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def share(self, text: str) -> None:
        self.items.append(text)

    def drop(self) -> None:
        self.items.clear()

    def attach_to(self, prompt: str) -> str:
        """``prompt`` with what was shared after it; the shared items are then gone."""
        if not self.items:
            return prompt
        prompt = "\n\n".join([prompt, *self.items])
        self.items.clear()
        return prompt


class ReadLoop:
    """Reading input goes on until a quit (``/quit``, Ctrl-C twice); text typed during a
    turn is the next line's start (or is sent at once when Enter was pressed)."""

    def __init__(self) -> None:
        self.quit = False
        self._typed: tuple[str, bool] = ("", False)  # (text, send at once)

    def stop(self) -> None:
        self.quit = True

    def carry(self, typed: str, queued: bool, *, quit: bool = False) -> None:
        """What a turn left: its typed-ahead text and whether the user quit during it."""
        self._typed = (typed, queued)
        self.quit = self.quit or quit

    def take_typed(self) -> tuple[str, bool]:
        """(text typed ahead, send it at once), once."""
        taken, self._typed = self._typed, ("", False)
        return taken


class ToolOutput:
    """The tool blocks of the last turn (or ``!command``) that showed any."""

    def __init__(self) -> None:
        self.blocks: list[ToolBlock] = []

    def keep(self, blocks: list[ToolBlock]) -> None:
        if blocks:
            self.blocks = blocks


class ContextMeter:
    """Tokens in the model's context after the last turn (or compaction); 0 when unknown."""

    def __init__(self) -> None:
        self.tokens = 0

    def measured(self, usage: Usage) -> None:
        self.tokens = (usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
                       + usage.output_tokens)

    def set(self, tokens: int) -> None:
        self.tokens = tokens
