"""What the slash commands do. Each takes the app and the text after the command name."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from aiagent.agent.core.session import SessionRequest
from aiagent.contracts.providers import ProviderError
from aiagent.frontends.headless import usage_reported
from aiagent.frontends.tui import render
from aiagent.frontends.tui.history import show_history
from aiagent.frontends.tui.review import review as run_review
from aiagent.frontends.tui.status import tokens
from aiagent.infra.config.pricing import cost as dollars
from aiagent.infra.config.pricing import known_models, run_cost
from aiagent.infra.config.settings import ConfigError

if TYPE_CHECKING:
    from aiagent.frontends.tui.app import InteractiveApp

MODES = ("read-only", "prompt", "auto-edit", "full-auto")


def _say(app: InteractiveApp, text: str, style: str = "") -> None:
    app.say(render.notice(text, style))


async def _need_agent(app: InteractiveApp) -> bool:
    if await app.ready() and app.agent is not None:
        return True
    problems = app.parts.problems if app.parts else [app.fatal or "not ready"]
    _say(app, "✗ " + "; ".join(problems), "red")
    return False


# ---- model and provider --------------------------------------------------------------


def model_names(app: InteractiveApp) -> list[str]:

    names = set(known_models())
    if app.settings is not None:
        for provider in ("anthropic", "openai", "ollama"):
            if name := app.settings.provider.entry(provider).model:
                names.add(name)
    return sorted(names)


async def model(app: InteractiveApp, arg: str) -> None:
    if not await _need_agent(app):
        return
    assert app.agent is not None and app.parts is not None
    if not arg:
        _say(app, f"model: {app.agent.config.model} ({app.provider_name}) — /model NAME to switch")
        return
    app.agent.use_model(arg)
    _say(app, f"model set to {arg}", "green")


async def provider(app: InteractiveApp, arg: str) -> None:
    if arg and await app.ready() and app.agent is None:  # nothing built yet: start over
        await app.rebuild({"provider": arg})
        if app.agent is not None:
            _say(app, f"provider set to {arg} (model {app.agent.config.model})", "green")
        return
    if not await _need_agent(app):
        return
    assert app.agent is not None and app.settings is not None
    if not arg:
        _say(app, f"provider: {app.provider_name} — /provider anthropic|openai|ollama to switch")
        return

    assert app.parts is not None and app.parts.app is not None
    try:
        choice, new = app.parts.app.use_provider(arg)
    except (ValueError, ConfigError, ProviderError) as exc:
        _say(app, f"✗ {exc}", "red")
        return
    app.use_provider(choice.name, new, model=choice.model)
    _say(app, f"provider set to {arg} (model {app.agent.config.model})", "green")


# ---- conversation --------------------------------------------------------------------


async def clear(app: InteractiveApp, arg: str) -> None:
    if not await _need_agent(app):
        return
    assert app.agent is not None and app.parts is not None

    app.switch_session(SessionRequest())
    app.next_message.drop()
    if app.term.tty and app.screen.console is not None:
        app.screen.console.clear()
    _say(app, "new conversation", "green")


async def cost(app: InteractiveApp, arg: str) -> None:
    if not await _need_agent(app):
        return
    assert app.agent is not None

    u = app.agent.usage
    if not usage_reported(u):
        _say(app, "token usage: unknown (the server has reported none)")
        return
    _say(app, f"input {tokens(u.input_tokens)} · output {tokens(u.output_tokens)} · cache read "
              f"{tokens(u.cache_read_tokens)} · cache write {tokens(u.cache_write_tokens)}")
    for line in _children_cost(app.agent.usage_elsewhere):
        _say(app, line)
    price = run_cost(app.agent.config.model, u, app.agent.usage_elsewhere)
    _say(app, f"estimated cost: ${price:.4f}" if price is not None
         else f"no price known for {app.agent.config.model}")


def _children_cost(elsewhere: list[tuple[str, Any]]) -> list[str]:
    """One line per model the ``task`` children ran on: how many, tokens, cost."""
    by_model: dict[str, list[Any]] = {}
    for model, usage in elsewhere:
        by_model.setdefault(model, []).append(usage)
    lines = []
    for model, usages in by_model.items():
        i, o = sum(u.input_tokens for u in usages), sum(u.output_tokens for u in usages)
        priced = [dollars(model, u) for u in usages]
        money = f" · ${sum(p for p in priced if p is not None):.4f}" if None not in priced \
            else " · no price known (counted at the main model's)"
        lines.append(f"subagents on {model}: {len(usages)} · input {tokens(i)} · output {tokens(o)}{money}")
    return lines


async def compact(app: InteractiveApp, arg: str) -> None:
    if not await _need_agent(app):
        return
    assert app.agent is not None
    agent = app.agent
    if not agent.can_compact:
        _say(app, "compaction is not available in this build", "yellow")
        return
    _say(app, "compacting…")
    try:
        done = await agent.compact()
    except Exception as exc:  # noqa: BLE001 - the session stays usable
        _say(app, f"✗ compaction failed: {exc}", "red")
        return
    if done is None:
        _say(app, "nothing to compact yet")
        return
    app.meter.set(done.after_tokens)
    _say(app, f"compacted: about {done.before_tokens} → {done.after_tokens} tokens", "green")


# ---- sessions ------------------------------------------------------------------------


def _ago(stamp: float) -> str:
    seconds = max(0, time.time() - stamp)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def session_choices(app: InteractiveApp) -> list[tuple[str, str]]:
    if app.parts is None:
        return []
    return [(s.id, s.title[:40]) for s in app.parts.link.list() if s.message_count]


async def sessions(app: InteractiveApp, arg: str) -> None:
    if not await app.ready() or app.parts is None:
        return
    found = [s for s in app.parts.link.list() if s.message_count]
    if not found:
        _say(app, "no sessions in this folder yet")
        return
    for info in found:
        mark = "*" if info.id == app.parts.link.id else " "
        _say(app, f"{mark} {info.id}  {_ago(info.updated_at):>8}  {info.message_count:>4} msgs  "
                  f"{info.title or '(untitled)'}")
    _say(app, "/resume ID to open one", "dim")


async def resume(app: InteractiveApp, arg: str) -> None:
    if not await _need_agent(app):
        return
    assert app.parts is not None
    if not arg:
        await sessions(app, "")
        return

    try:
        app.switch_session(SessionRequest(resume=arg))
    except Exception as exc:  # noqa: BLE001 - SessionNotFound and store errors: one line
        _say(app, f"✗ {exc}", "red")
        return
    assert app.agent is not None
    show_history(app.screen, app.parts.link.info, app.agent.conversation.messages)


# ---- permissions ---------------------------------------------------------------------


def _approvals(app: InteractiveApp) -> Any:
    policy = app.parts.policy if app.parts else None
    return getattr(policy, "store", None)


async def permissions(app: InteractiveApp, arg: str) -> None:
    if not await app.ready():
        return
    store = _approvals(app)
    if store is None:
        _say(app, "saved permissions are not available in this build", "yellow")
        return
    project = str(getattr(app.parts.policy, "project", app.workspace))  # type: ignore[union-attr]
    verb, _, rest = arg.partition(" ")
    if verb == "revoke" and rest.strip().isdigit():
        try:
            grant = store.revoke(int(rest))
        except KeyError:
            _say(app, f"✗ no permission #{rest.strip()}", "red")
            return
        _say(app, f"revoked #{grant.id} {grant.label}", "green")
        return
    if verb == "clear":
        _say(app, f"revoked {store.clear(project=project)} permissions for this project", "green")
        return
    grants = store.list(project=project)
    if not grants:
        _say(app, "no saved permissions for this project")
    for g in grants:
        _say(app, f"#{g.id:<4} {g.effect:<5} {g.scope:<8} {g.label}")
    _say(app, "/permissions revoke ID · /permissions clear", "dim")


async def approval_mode(app: InteractiveApp, arg: str) -> None:
    if not await app.ready() or app.parts is None:
        return
    policy = app.parts.policy
    if not arg:
        _say(app, f"approval mode: {getattr(policy, 'mode', '?')} (modes: {', '.join(MODES)})")
        return
    if arg not in MODES:
        _say(app, f"✗ unknown mode {arg!r} (modes: {', '.join(MODES)})", "red")
        return
    policy.mode = arg
    _say(app, f"approval mode set to {arg}", "green")
    app.input.refresh()


# ---- files: diff, undo, rewind -------------------------------------------------------


async def diff(app: InteractiveApp, arg: str) -> None:
    if not await app.ready() or app.parts is None:
        return
    checkpoints = app.parts.checkpoints
    turns = checkpoints.turns if checkpoints else []
    if checkpoints is None or not turns:
        _say(app, "no changes recorded in this session yet")
        return
    text = await asyncio.to_thread(checkpoints.diff, turns[0].before)
    if not text.strip():
        _say(app, "no changes since the session started")
        return
    app.say(render.diff_text(text, limit=None))


async def review(app: InteractiveApp, arg: str) -> None:
    """``/review``: the code review of the working tree (with the model when one is set)."""

    await run_review(app, arg)


async def undo(app: InteractiveApp, arg: str) -> None:
    if not await app.ready() or app.parts is None:
        return
    checkpoints = app.parts.checkpoints
    if checkpoints is None:
        _say(app, "checkpoints need git, which is not installed", "yellow")
        return
    done = await asyncio.to_thread(checkpoints.undo)
    if done is None:
        _say(app, "nothing to undo: no turn changed files")
        return
    turn, paths = done
    _say(app, f"restored {len(paths)} file(s) changed by turn {turn.number}:", "green")
    for path in paths:
        _say(app, f"  {path}")
    app.next_message.share(
        f"[The user undid the file changes of an earlier turn; these files are back as they "
        f"were before it: {', '.join(paths)}]")


def turn_choices(app: InteractiveApp) -> list[tuple[str, str]]:
    checkpoints = app.parts.checkpoints if app.parts else None
    if checkpoints is None:
        return []
    return [(str(t.number), t.prompt.splitlines()[0][:50] if t.prompt else "")
            for t in checkpoints.turns]


async def rewind(app: InteractiveApp, arg: str) -> None:
    if not await _need_agent(app):
        return
    assert app.parts is not None and app.agent is not None
    checkpoints = app.parts.checkpoints
    if checkpoints is None or not checkpoints.turns:
        _say(app, "no turns to rewind to yet")
        return
    if not arg.isdigit():
        for number, prompt in turn_choices(app):
            _say(app, f"  {number:>3}  {prompt}")
        _say(app, "/rewind N goes back to before turn N (its files and the conversation)", "dim")
        return
    turn = next((t for t in checkpoints.turns if t.number == int(arg)), None)
    if turn is None:
        _say(app, f"✗ no turn {arg}", "red")
        return
    paths = await asyncio.to_thread(checkpoints.rewind, turn.number)
    messages = app.agent.conversation.messages[: turn.history_len]
    app.parts.link.fork_at(messages)
    app.parts.link.attach(app.agent, app.parts.policy)
    _say(app, f"rewound to before turn {turn.number}: {len(paths)} file(s) restored, "
              f"conversation forked at {len(messages)} messages", "green")
