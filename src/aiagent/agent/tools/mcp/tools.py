"""The tools the model sees for MCP servers: ``server__tool`` for each tool of each server,
and ``mcp_read_resource`` for their resources.

An MCP server is code nobody reviewed: every one of its tools declares that it runs a
program and reaches the network (``execute`` + ``network``), whatever hints the server
gives, so the approval policy asks as for any such tool; "always" saves a grant for that
one server tool. Names, descriptions and schemas come from the server and are checked
before the model sees them.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from aiagent.agent.tools.images import Images
from aiagent.agent.tools.mcp.connection import McpConnection, ServerDown
from aiagent.contracts.events import ToolOutputEvent
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError, ToolResult

if TYPE_CHECKING:
    from aiagent.agent.tools.images import Images

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MCP_EFFECT = ToolEffect.of("execute", "network")
RESOURCE_EFFECT = ToolEffect.of("network")
MAX_DESCRIPTION = 2000
SEPARATOR = "__"


def tool_name(server: str, tool: str) -> str:
    return f"{server}{SEPARATOR}{tool}"


def check_tool(server: str, remote: Any) -> str | None:
    """Why the server's tool cannot be offered (name, schema), or None."""
    name = tool_name(server, str(remote.name))
    if not TOOL_NAME.match(name):
        return (f"MCP server {server}: tool {str(remote.name)[:80]!r} skipped: a tool name may only "
                "hold letters, digits, '_' and '-', and server__tool at most 64 characters")
    schema = remote.input_schema
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return f"MCP server {server}: tool {remote.name!r} skipped: its input schema is not an object"
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"MCP server {server}: tool {remote.name!r} skipped: invalid input schema: {exc.message}"
    return None


class McpTool:
    """One tool of one server."""

    effect = MCP_EFFECT

    def __init__(self, connection: McpConnection, remote: Any, max_chars: int) -> None:
        self.connection, self.remote_name, self.max_chars = connection, str(remote.name), max_chars
        self.name = tool_name(connection.name, self.remote_name)
        text = " ".join(str(remote.description or "").split())[:MAX_DESCRIPTION]
        self.description = f"[MCP server {connection.name}] {text or self.remote_name}"
        self.input_schema: dict[str, Any] = {"type": "object", **dict(remote.input_schema)}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        async def progress(done: float, total: float | None, message: str | None) -> None:
            of = f"/{total:g}" if total else ""
            ctx.emit(ToolOutputEvent(ctx.call_id, "stdout",
                                     f"[{self.name}] {done:g}{of} {message or ''}".rstrip() + "\n"))

        try:
            result = await self.connection.call_tool(self.remote_name, args, progress=progress,
                                                      cancel=ctx.cancel)
        except ServerDown as exc:
            raise ToolError(str(exc)) from None

        images = Images()
        text = cap(result_text(result, images), self.max_chars)
        text = "\n".join([text, *images.notes]) if images.notes else text
        return ToolResult(text, bool(result.is_error), images=images.parts)


class ReadResourceTool:
    """``mcp_read_resource {server, uri?}``: a resource's content, or the server's list."""

    name = "mcp_read_resource"
    effect = RESOURCE_EFFECT

    def __init__(self, connections: dict[str, McpConnection], max_chars: int) -> None:
        self.connections, self.max_chars = connections, max_chars
        self.description = ("Read a resource of an MCP server by its URI; without a uri, list "
                            "the server's resources. Servers: " + ", ".join(sorted(connections)))
        self.input_schema: dict[str, Any] = {
            "type": "object",
            "properties": {"server": {"type": "string", "enum": sorted(connections)},
                           "uri": {"type": "string"}},
            "required": ["server"], "additionalProperties": False,
        }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        connection = self.connections[args["server"]]
        uri = args.get("uri")
        try:
            if not uri:
                await connection.ensure()
                lines = [f"{r.uri}  {r.name}" + (f" - {r.description}" if r.description else "")
                         for r in connection.resources]
                return ToolResult("\n".join(lines) or f"MCP server {connection.name} has no resources")
            result = await connection.read_resource(str(uri))
        except ServerDown as exc:
            raise ToolError(str(exc)) from None
        parts = [getattr(c, "text", None) or describe_binary(c) for c in result.contents]
        return ToolResult(cap("\n".join(parts), self.max_chars))


def result_text(result: Any, images: Images | None = None) -> str:
    """A tool result's content blocks as text for the model (binary parts described);
    with ``images``, image parts go there (checked and bounded) instead of a description."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "image" and images is not None:
            images.add_base64(str(block.data), str(block.mime_type))
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} {block.mime_type}, {len(block.data) * 3 // 4} bytes, not shown]")
        elif kind == "resource":
            inner = block.resource
            parts.append(getattr(inner, "text", None) or describe_binary(inner))
        elif kind == "resource_link":
            parts.append(f"[resource {block.uri}]")
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)


def describe_binary(contents: Any) -> str:
    blob = getattr(contents, "blob", "") or ""
    return f"[{getattr(contents, 'mime_type', None) or 'binary'} {contents.uri}, {len(blob) * 3 // 4} bytes, not shown]"


def cap(text: str, limit: int) -> str:
    """At most ``limit`` characters: the head and the tail, with what was cut in between."""
    if limit <= 0 or len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n…[{len(text) - 2 * half} characters cut]…\n{text[-half:]}"
