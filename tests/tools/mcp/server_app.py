"""A real MCP server built with the SDK, for the tests: ``python server_app.py [stdio|http PORT]``.

Tools: ``echo``, ``add``, ``slow`` (progress notifications), ``hang`` (never answers),
``crash`` (the process exits mid-call), ``big`` (a result of N bytes), ``grow`` (adds the
tool ``extra`` and announces the change), ``picture`` (images: a PNG, bytes that are not
one, or five PNGs); a prompt ``review`` and a resource ``note://hello``.
``MCP_TEST_SECRET_PROBE`` names an environment variable whose presence ``env_has`` reports.
"""

from __future__ import annotations

import asyncio
import os
import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("testserver")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def env_has(name: str) -> str:
    """Whether the server's environment holds the variable ``name``."""
    return "yes" if name in os.environ else "no"


@server.tool()
async def slow(steps: int, ctx: Context) -> str:
    """Report progress ``steps`` times, then answer."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        await asyncio.sleep(0.05)
    return "slow done"


@server.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.sleep(3600)
    return "unreachable"


@server.tool()
def crash() -> str:
    """The server process dies in the middle of the call."""
    sys.stderr.write("testserver: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def big(size: int) -> str:
    """A result of ``size`` characters."""
    return "x" * size


PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000002000000030806000000b9eade81000000164944"
                    "4154789c63fccfc0f09f8181818189010ae00c00313b0204ef1e83910000000049454e44ae426082")


@server.tool()
def picture(kind: str) -> list[object]:
    """``ok``: text and a 2x3 PNG; ``broken``: bytes that are no image; ``many``: five PNGs."""
    import base64

    from mcp.types import ImageContent, TextContent

    def image(data: bytes) -> ImageContent:
        return ImageContent(type="image", data=base64.b64encode(data).decode(), mime_type="image/png")

    if kind == "broken":
        return [TextContent(type="text", text="a broken picture"), image(b"\x89PNG\r\n\x1a\nnot really")]
    count = 5 if kind == "many" else 1
    return [TextContent(type="text", text=f"{count} picture(s)"), *(image(PNG) for _ in range(count))]


def extra() -> str:
    """A tool that appears after ``grow``."""
    return "extra here"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool ``extra`` and tell the client the list changed."""
    server.add_tool(extra)
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.prompt()
def review(topic: str) -> str:
    """Ask for a review of a topic."""
    return f"Please review {topic}."


@server.resource("note://hello")
def hello_note() -> str:
    """A small note."""
    return "hello from a resource"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        if os.environ.get("MCP_TEST_GARBAGE"):
            sys.stdout.write("this is not json\n{\"half\": \n")
            sys.stdout.flush()
        server.run("stdio")
