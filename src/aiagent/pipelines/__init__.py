"""Pipelines: code review and log analysis as libraries.

Each pipeline runs its static part on its own and, when a front-end hands it an agent
already built through :mod:`aiagent.app`, a model part on top. The CLI, the TUI and later
the web UI call them; none of them builds an agent here.
"""
