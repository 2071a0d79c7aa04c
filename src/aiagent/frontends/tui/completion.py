"""Completion for the input line: ``/commands`` (and their arguments) and ``@paths``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from aiagent.frontends.tui import mentions

if TYPE_CHECKING:
    from aiagent.frontends.tui.commands import CommandTable

AT_WORD = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )*)$")


class CommandCompleter(Completer):
    """``/na`` → command names; ``/name ar`` → that command's argument choices."""

    def __init__(self, table: CommandTable) -> None:
        self.table = table

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        name, space, arg = text[1:].partition(" ")
        if not space:
            for match in self.table.matching(name):
                yield Completion(f"/{match.name}", start_position=-len(text),
                                 display=f"/{match.name}", display_meta=match.help)
            return
        command = self.table.get(name)
        if command is None or command.choices is None:
            return
        for value, meta in command.choices(arg):
            if value.startswith(arg) or arg.lower() in value.lower():
                yield Completion(value, start_position=-len(arg), display_meta=meta)


class PathCompleter(Completer):
    """``@frag`` → files and folders of the workspace (listed once, on first use)."""

    def __init__(self, workspace: Callable[[], Path]) -> None:
        self.workspace = workspace
        self._paths: list[str] | None = None
        self._root: Path | None = None

    def paths(self) -> list[str]:
        root = self.workspace()
        if self._paths is None or root != self._root:
            self._root = root
            self._paths = mentions.with_dirs(mentions.list_files(root))
        return self._paths

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        match = AT_WORD.search(document.text_before_cursor)
        if match is None:
            return
        fragment = match.group(1).replace("\\ ", " ")
        for path in mentions.rank(self.paths(), fragment):
            shown = path.replace(" ", "\\ ")
            yield Completion(shown, start_position=-len(match.group(1)), display=path)


class InputCompleter(Completer):
    def __init__(self, commands: CommandCompleter, paths: PathCompleter) -> None:
        self.commands, self.paths = commands, paths

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        if document.text_before_cursor.startswith("/"):
            yield from self.commands.get_completions(document, event)
        yield from self.paths.get_completions(document, event)
