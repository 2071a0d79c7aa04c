"""User hooks: commands from the config run at the agent's events (docs/hooks.md).

Not the skills' lifecycle hooks (:mod:`aiagent.agent.skills.hooks`): these are the user's
``[[hooks.PreToolUse]]``… tables, and optionally the hooks of Claude Code's settings files,
in Claude Code's format (a JSON payload on stdin; exit code 2 or a JSON answer).

* :mod:`.config`: what is configured, where from, what may run (trust, opt-in);
* :mod:`.reply`: running one command and reading its answer;
* :mod:`.engine`: firing them at the loop's hook points, and the approval wrapper;
* :func:`attach`: the one call the set-up makes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiagent.agent.hooks.engine import UserHooks
    from aiagent.infra.config.settings import Settings


def attach(agent: Any, settings: Settings, *, session_id: str, report: Any = None) -> UserHooks | None:
    """Fire the configured hooks at ``agent``'s events; None when none may run. Raises a
    one-line ConfigError for a bad matcher or a malformed Claude settings file."""
    from aiagent.agent.hooks import config, engine
    from aiagent.agent.hooks.transcript import Transcript
    from aiagent.infra.config import paths

    hooks = config.load(settings)
    say = report or engine.warn
    untrusted = [i for i in hooks.ignored if i.spec is not None and "not trusted" in i.why]
    if untrusted:
        say(f"{len(untrusted)} project hook(s) not run: {untrusted[0].why} "
            "(`aiagent hooks list` shows them)")
    if not hooks.active:
        return None
    engine.warn_unknown_names(hooks, agent.tools.names(), say)
    policy = agent.approval
    facts = engine.RunFacts(
        session_id=session_id, project=paths.project_root(settings.workspace),
        cwd=settings.workspace, env=dict(settings.env), model=agent.config.model,
        permission_mode=str(getattr(policy, "mode", "default")))
    fired = engine.UserHooks(hooks, facts, say)
    fired.conversation = lambda: agent.conversation.messages
    fired.transcript = Transcript(paths.data_dir(settings.env) / "transcripts", session_id,
                                  settings.workspace)
    fired.policy = policy
    guard = (lambda current: engine.HookApproval(current, fired)) if hooks.has("PreToolUse") else None
    agent.add_hooks(fired.as_hooks(), guard=guard, user=fired)  # (children: SubagentStop)
    return fired
