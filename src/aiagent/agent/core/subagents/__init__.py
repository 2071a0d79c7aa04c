"""Subagents: the ``task`` tool's children (profiles, and running them); see docs/subagents.md.

The child itself is built by the one set-up path, :mod:`aiagent.app.subagents`.
"""
