"""MCP servers' prompts as slash commands: ``/mcp__SERVER__PROMPT [args]``.

A prompt is a message template a server offers; the user picks it, the server fills it in,
and the text is sent as the user's message (the user chose to send it, so it goes through
no approval, but it is capped like any server output). Arguments are typed after the
command: ``key=value`` pairs and, for the rest, plain words in the order the server declares
its arguments (quote a value with spaces: ``/mcp__git__review "the parser"``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from aiagent.agent.tools.mcp.connection import McpConnection
from aiagent.agent.tools.mcp.tools import cap, describe_binary

PREFIX = "mcp"
SEPARATOR = "__"
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_DESCRIPTION = 200


@dataclass(frozen=True, slots=True)
class PromptCommand:
    """One server prompt offered as ``/NAME``."""

    name: str
    connection: McpConnection
    prompt: str
    description: str
    arguments: tuple[tuple[str, bool], ...]  # (name, required) in the server's order

    @property
    def usage(self) -> str:
        return " ".join(a if required else f"[{a}]" for a, required in self.arguments)


def command_name(server: str, prompt: str) -> str:
    return f"{PREFIX}{SEPARATOR}{server}{SEPARATOR}{prompt}"


def prompt_commands(connections: dict[str, McpConnection]) -> dict[str, PromptCommand]:
    """The prompts of the servers that are up, by command name; odd names are left out."""
    found: dict[str, PromptCommand] = {}
    for server, connection in sorted(connections.items()):
        for remote in connection.prompts if connection.alive else ():
            name = str(getattr(remote, "name", ""))
            if not NAME.match(name) or not NAME.match(server):
                continue
            text = " ".join(str(getattr(remote, "description", "") or "").split())
            arguments = tuple((str(a.name), bool(a.required))
                              for a in getattr(remote, "arguments", None) or ()
                              if NAME.match(str(a.name)))
            found[command_name(server, name)] = PromptCommand(
                command_name(server, name), connection, name,
                text[:MAX_DESCRIPTION] or f"prompt {name} of MCP server {server}", arguments)
    return found


def parse_arguments(command: PromptCommand, typed: str) -> dict[str, str]:
    """The prompt's arguments from what was typed after the command; ValueError says why not."""
    try:
        words = shlex.split(typed)
    except ValueError as exc:
        raise ValueError(f"/{command.name}: {exc}") from None
    declared = [name for name, _ in command.arguments]
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in declared:
            values[key] = value
        else:
            positional.append(word)
    free = [name for name in declared if name not in values]
    if len(positional) > len(free):
        if not free:
            raise ValueError(f"/{command.name} takes no more arguments"
                             + (f" (it takes: {command.usage})" if command.usage else ""))
        positional[len(free) - 1:] = [" ".join(positional[len(free) - 1:])]
    values.update(zip(free, positional, strict=False))
    missing = [name for name, required in command.arguments if required and name not in values]
    if missing:
        raise ValueError(f"/{command.name}: missing argument {', '.join(missing)} "
                         f"(usage: /{command.name} {command.usage})")
    return values


async def fill_prompt(command: PromptCommand, args: dict[str, str], max_chars: int) -> str:
    """The filled-in prompt as one message text (raises ServerDown when the server fails)."""
    result = await command.connection.get_prompt(command.prompt, args)
    messages = list(getattr(result, "messages", None) or [])
    parts = [(str(m.role), _content_text(m.content)) for m in messages]
    if len(parts) == 1 and parts[0][0] == "user":
        text = parts[0][1]
    else:
        text = "\n\n".join(f"[{role}]\n{body}" for role, body in parts)
    if not text.strip():
        raise ValueError(f"/{command.name}: the server returned an empty prompt")
    return cap(text, max_chars)


def _content_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "resource":
        inner = block.resource
        return getattr(inner, "text", None) or describe_binary(inner)
    if kind == "resource_link":
        return f"[resource {block.uri}]"
    if kind in ("image", "audio"):
        return f"[{kind} {getattr(block, 'mime_type', '')}, not shown]"
    return f"[{kind or 'unknown'} content]"
