"""The contracts every layer shares; this package imports nothing else of aiagent.

- :mod:`~aiagent.contracts.messages`: the conversation (``Message``, blocks, ``Usage``).
- :mod:`~aiagent.contracts.events`: ``AgentEvent``, the one stream every front-end consumes.
- :mod:`~aiagent.contracts.tools`: the ``Tool`` protocol, ``ToolEffect``, ``ToolContext``,
  ``ToolResult``, ``ToolError``.
- :mod:`~aiagent.contracts.providers`: the ``Provider`` protocol, requests, stream events
  and the ``ProviderError`` family.
- :mod:`~aiagent.contracts.approval`: the ``ApprovalPolicy`` protocol and its ``Decision``.
- :mod:`~aiagent.contracts.hooks`: the hook points of the loop (``Hooks``, ``ToolCall``).
- :mod:`~aiagent.contracts.prompt`: ``PromptFragment``, a piece of the system prompt.

The import-layer contract in ``pyproject.toml`` keeps it at the bottom.
"""
