"""Slash commands: a table of name → handler, help and argument choices.

Handlers are small functions over the app; the work they start (undo, rewind, resume,
compaction) lives in :mod:`aiagent.frontends.tui.actions` or in the core.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiagent.frontends.tui import actions, render, skills
from aiagent.frontends.tui.mcp_prompts import prompt_commands, run_prompt
from aiagent.frontends.tui.workflows import run_workflow_command, workflow_commands

if TYPE_CHECKING:
    from aiagent.frontends.tui.app import InteractiveApp

Handler = Callable[["InteractiveApp", str], Awaitable[None]]
Choices = Callable[[str], list[tuple[str, str]]]
MODES = ("read-only", "prompt", "auto-edit", "full-auto")


@dataclass
class Command:
    name: str
    help: str
    run: Handler
    choices: Choices | None = None
    aliases: tuple[str, ...] = ()


@dataclass
class CommandTable:
    app: InteractiveApp
    commands: dict[str, Command] = field(default_factory=dict)

    def add(self, command: Command) -> None:
        self.commands[command.name] = command

    def get(self, name: str) -> Command | None:
        found = self.commands.get(name)
        if found is None:
            found = next((c for c in self.commands.values() if name in c.aliases), None)
        if found is None:
            found = self.workflows().get(name)
        if found is None and name.startswith("mcp__"):
            from aiagent.frontends.tui.mcp_prompts import manager_of

            if self.app is not None and manager_of(self.app) is not None:
                found = Command(name, "MCP prompt", _mcp_prompt(name))  # servers may still start
        return found

    def workflows(self) -> dict[str, Command]:
        """Workflow skills as commands (``/NAME input``); built-in names win."""

        if self.app is None or self.app.agent is None:
            return {}
        return {name: Command(name, f"workflow: {about}", _workflow(name))
                for name, about in workflow_commands(self.app).items()
                if name not in self.commands}

    def mcp_prompts(self) -> dict[str, Command]:
        """MCP servers' prompts as commands (``/mcp__server__prompt args``)."""

        if self.app is None:
            return {}
        return {name: Command(name, f"MCP prompt: {c.description}", _mcp_prompt(name))
                for name, c in prompt_commands(self.app).items() if name not in self.commands}

    def matching(self, prefix: str) -> list[Command]:
        found = {**self.mcp_prompts(), **self.workflows(), **self.commands}
        return [c for name, c in sorted(found.items()) if name.startswith(prefix)]

    async def run(self, line: str) -> bool:
        """Run ``/name args``; False when it is not a command (send it as a message)."""
        name, _, arg = line[1:].partition(" ")
        command = self.get(name.strip())
        if command is None:
            if "/" in name or not name:
                return False
            self.app.say(render.notice(f"unknown command /{name} — /help lists them", "red"))
            return True
        await command.run(self.app, arg.strip())
        return True


def build_commands(app: InteractiveApp) -> CommandTable:
    table = CommandTable(app)
    for command in _commands(app):
        table.add(command)
    return table


def _commands(app: InteractiveApp) -> list[Command]:
    return [
        Command("help", "list commands and keys", _help),
        Command("model", "show or switch the model", actions.model,
                lambda arg: [(m, "") for m in actions.model_names(app)]),
        Command("provider", "show or switch the provider", actions.provider,
                lambda arg: [(p, "") for p in ("anthropic", "openai", "ollama")]),
        Command("clear", "start a new conversation", actions.clear, aliases=("new",)),
        Command("cost", "tokens and estimated cost of this session", actions.cost),
        Command("compact", "summarise older turns to free context", actions.compact),
        Command("sessions", "list sessions in this folder", actions.sessions),
        Command("resume", "resume a session: /resume ID", actions.resume,
                lambda arg: actions.session_choices(app)),
        Command("permissions", "saved permissions: /permissions [revoke ID | clear]",
                actions.permissions),
        Command("approval-mode", "show or set: " + ", ".join(MODES), actions.approval_mode,
                lambda arg: [(m, "") for m in MODES]),
        Command("diff", "changes made to files in this session", actions.diff),
        Command("review", "code review of the working tree (static part, and the model's when one is set)", actions.review),
        Command("undo", "restore the files the last turn changed", actions.undo),
        Command("rewind", "go back to before turn N (files and conversation)", actions.rewind,
                lambda arg: actions.turn_choices(app)),
        Command("skills", "list skills and their state", skills.show_skills),
        Command("skill", "activate a skill: /skill NAME", skills.skill_command,
                lambda arg: skills.skill_choices(app)),
        Command("quit", "leave aiagent", _quit, aliases=("exit",)),
    ]


KEYS_HELP = (
    ("Enter", "send"), ("Alt-Enter, Ctrl-J, \\ at line end", "new line"),
    ("Tab", "complete /commands and @paths"), ("Up / Down, Ctrl-R", "history"),
    ("Esc", "stop the running turn"), ("Ctrl-C", "clear the line; twice quits"),
    ("Ctrl-D", "quit (on an empty line)"), ("Ctrl-O", "show the last tool output in full"),
    ("Shift-Tab", "cycle the approval mode"), ("@path", "attach a file or folder"),
    ("!command", "run a shell command; its output goes with your next message"),
)


async def _help(app: InteractiveApp, arg: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for command in app.commands.matching(""):
        table.add_row(escape(f"/{command.name}"), escape(command.help))
    keys = Table.grid(padding=(0, 2))
    keys.add_column(style="bold", no_wrap=False, max_width=22)
    keys.add_column()
    for key, what in KEYS_HELP:
        keys.add_row(key, what)
    app.say(render.notice("Commands", "bold"))
    app.say(table)
    app.say(render.notice("Keys", "bold"))
    app.say(keys)


def _workflow(name: str) -> Handler:
    async def run(app: InteractiveApp, arg: str) -> None:

        await run_workflow_command(app, name, arg)

    return run


def _mcp_prompt(name: str) -> Handler:
    async def run(app: InteractiveApp, arg: str) -> None:

        await run_prompt(app, name, arg)

    return run


async def _quit(app: InteractiveApp, arg: str) -> None:
    app.reading.stop()
