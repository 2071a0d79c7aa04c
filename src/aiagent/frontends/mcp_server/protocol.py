"""The SDK's low-level ``Server`` that answers the protocol of ``aiagent mcp serve``.

The tools are declared on the SDK's ``MCPServer`` (:mod:`.server`: their schemas, the
checks of their arguments, the ``Context`` a tool reports progress through), which only
runs on the SDK's own stdio transport. This ``Server``, built from the SDK's public API
alone, serves them on the server's own transport (:mod:`.stdio`): ``tools/list`` and
``tools/call`` go to ``MCPServer.list_tools`` and ``MCPServer.call_tool``. Only tools are
offered (the server has no resources nor prompts).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp import MCPError
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server.mcpserver import Context, RequestStateBoundary, RequestStateSecurity
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
)

log = logging.getLogger("aiagent.mcp.serve")


def lowlevel(tools: MCPServer[Any]) -> Server[Any]:
    """The ``Server`` (name, version and instructions of ``tools``) serving its tools."""

    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                         ) -> ListToolsResult:
        del ctx, params
        return ListToolsResult(tools=await tools.list_tools())

    async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams
                        ) -> CallToolResult | InputRequiredResult:
        context: Context[Any, Any] = Context(request_context=ctx, mcp_server=tools, input_params=params)
        try:
            return await tools.call_tool(params.name, params.arguments or {}, context)
        except MCPError:
            raise
        except Exception as exc:  # the call's one-line error, as isError (not a protocol error)
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc, ToolError):
                log.warning("%s failed: %r", params.name, exc.__cause__ or exc)
            return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)

    server: Server[Any] = Server(tools.name, version=tools.version, instructions=tools.instructions,
                                 on_list_tools=list_tools, on_call_tool=call_tool)
    # as MCPServer does: a client-echoed requestState is checked, never trusted
    server.middleware.append(RequestStateBoundary(RequestStateSecurity.ephemeral(),
                                                  default_audience=server.name))
    return server
