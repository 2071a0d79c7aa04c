"""Skill backends: Starlark (embedded, in a limited worker process), external process
(JSON-RPC on stdio) and Python (in-process plugins)."""
