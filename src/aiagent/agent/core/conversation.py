"""The conversation: an append-only list of messages.

Assistant messages are stored exactly as the provider produced them. A listener (the
session store) sees every message as it is appended, so a crash loses at most the turn
in flight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from aiagent.contracts.messages import Message


class Conversation:
    def __init__(
        self,
        messages: Iterable[Message] = (),
        on_append: Callable[[Message], None] | None = None,
    ) -> None:
        self._messages = list(messages)
        self._listeners: list[Callable[[Message], None]] = []
        if on_append is not None:
            self._listeners.append(on_append)

    def subscribe(self, listener: Callable[[Message], None]) -> None:
        self._listeners.append(listener)

    def append(self, message: Message) -> None:
        self._messages.append(message)
        for listener in self._listeners:
            listener(message)

    @property
    def messages(self) -> list[Message]:
        """A copy: callers cannot rewrite history."""
        return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(list(self._messages))
