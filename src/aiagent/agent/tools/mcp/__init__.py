"""The MCP client: servers from ``[mcp.servers.NAME]`` and ``.mcp.json`` files, each a group
of tools for the model (``server__tool``), their resources through ``mcp_read_resource``.

Rooms: :mod:`.config` (where servers are configured, one-line errors), :mod:`.transport`
(stdio through :mod:`aiagent.infra.process.runner`, Streamable HTTP through the SDK),
:mod:`.connection` (one server: lazy start, time-outs, restart after a crash),
:mod:`.tools` (the Tool objects), :mod:`.manager` (all servers of one agent run).
The ``mcp`` SDK is imported only when a server starts.
"""
