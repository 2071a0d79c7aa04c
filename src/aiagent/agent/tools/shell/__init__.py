"""Shell execution that never hangs: processes, the shell tools, sessions, jobs, tags.

Call :func:`shutdown` with the run's ``ctx.state`` when an agent run ends.
"""

from aiagent.agent.tools.shell.runtime import shutdown

__all__ = ["shutdown"]
