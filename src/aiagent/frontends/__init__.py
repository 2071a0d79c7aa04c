"""Front-ends: the CLI, the terminal UI, headless runs, the web chat and ACP.

Each turns a user's or a program's request into a call on :mod:`aiagent.app` and renders
the one event stream; none builds an agent or picks a provider itself.
"""
