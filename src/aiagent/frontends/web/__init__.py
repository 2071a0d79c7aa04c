"""The local web chat (``aiagent serve``): a Starlette app over the same sessions, agent
and AgentEvent stream as the terminal UI, and a framework-free page in ``static/``.

Imported only by ``aiagent serve``; nothing below ``ui`` imports it.
"""
