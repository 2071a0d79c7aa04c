"""``aiagent acp``: the Agent Client Protocol over stdio, for editors and other ACP hosts.

``stdio.py`` owns the process's stdin/stdout (protocol only; stray output goes to stderr),
``server.py`` answers the protocol's methods with agents built by :mod:`aiagent.app`,
``updates.py`` turns the AgentEvent stream into ``session/update`` notifications,
``replay.py`` turns a stored session into the same, ``permissions.py`` maps approvals and
``files.py`` reads and writes files through the editor, ``terminal.py`` runs commands in
the editor's terminal and ``modes.py`` maps session modes onto approval modes. See docs/acp.md.
"""
