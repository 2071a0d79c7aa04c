"""``aiagent mcp serve``: aiagent as an MCP server on stdio (see docs/mcp.md).

* :mod:`.main` claims stdin/stdout for the protocol and runs the server;
* :mod:`.server` declares the tools (``run_task``, ``security_audit``, ``review_diff``,
  ``analyze_log``, ``build_wiki``), checks their arguments and paths and runs each call in
  a worker process (:mod:`.worker`, the engines in :mod:`.tasks`) through the one process
  runner, so that cancelling a call or losing the client ends everything it started;
* :mod:`.protocol` serves those tools on the SDK's low-level ``Server`` (public API only),
  on :mod:`.stdio`, the line transport, where a line over the size cap is never held in
  memory and a line that is not JSON-RPC gets a JSON-RPC error instead of being dropped.
"""
