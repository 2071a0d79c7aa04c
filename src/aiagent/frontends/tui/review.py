"""``/review``: the code review of the working tree, the same pipeline call as
``aiagent --headless --mode=code-review``. With a provider configured the model part runs
too, through its own read-only agent built by app.py; Esc or Ctrl-C stops it (the static
findings are still shown). Problems are one line each."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from aiagent.agent.core.session import SessionRequest
from aiagent.app import Application
from aiagent.contracts.providers import AuthError
from aiagent.engines.review import ReviewInputError, ReviewRequest, review_async
from aiagent.engines.review.render import render_markdown
from aiagent.engines.security.defaults import load_defaults
from aiagent.frontends.tui import render
from aiagent.frontends.tui.prepare import load_settings

if TYPE_CHECKING:
    from aiagent.app import Started
    from aiagent.frontends.tui.app import InteractiveApp

TITLE = "code review of the working tree"


def _say(app: InteractiveApp, text: str, style: str = "") -> None:
    app.say(render.notice(text, style))


def read_only_agent(app: InteractiveApp) -> Started | None:
    """A read-only agent for the model part (None: no provider is configured). Built the
    one way, as the CLI does: settings with ``approval_mode = read-only``, then app.py."""

    if app.agent is None or (app.parts is not None and app.parts.missing_key):
        return None
    settings = load_settings(app.cwd, {**app.options, "approval_mode": "read-only"}, app.env)
    try:
        # the chat's own provider and model (a /provider switch included), never another
        chosen = app.parts.app.resolve() if app.parts is not None and app.parts.app else None
        return Application(settings, interactive=False, choice=chosen).start(
            SessionRequest(), title=TITLE)
    except AuthError:
        return None


async def review(app: InteractiveApp, arg: str) -> None:
    """Run the review as a task that Esc / Ctrl-C cancels; show the report as Markdown."""

    await app.ready()
    built: list[Started] = []
    stopped = asyncio.Event()
    task = asyncio.ensure_future(_run(app, built))
    try:
        with _stop_keys(app, task, stopped):
            report = await task
    except asyncio.CancelledError:
        if not stopped.is_set():  # not our Esc: the app itself is ending
            raise
        _say(app, "■ review stopped", "yellow")
        return
    except ReviewInputError as exc:
        _say(app, f"✗ {exc}", "red")
        return
    except Exception as exc:  # noqa: BLE001 - a provider or config problem: one line
        _say(app, f"✗ review: {' '.join(str(exc).split()) or type(exc).__name__}", "red")
        return
    finally:
        for started in built:
            started.close()
    _show(app, report)


async def _run(app: InteractiveApp, built: list[Started]) -> Any:

    def make_agent() -> Any:
        started = read_only_agent(app)
        if started is None:
            return None
        built.append(started)
        _say(app, f"reviewing with the model ({started.agent.provider.name}, read-only tools; "
                  "Esc stops)…")
        return started.agent


    security = load_defaults(app.settings) if app.settings is not None else None
    return await review_async(ReviewRequest(app.workspace, security=security), make_agent)


@contextlib.contextmanager
def _stop_keys(app: InteractiveApp, task: asyncio.Future[Any], stopped: asyncio.Event) -> Any:
    """On a terminal, Esc or Ctrl-C cancels ``task`` (line mode has no single keys)."""
    from aiagent.frontends.tui.running import key_reader

    with key_reader(app.term) as keys:
        watcher = asyncio.ensure_future(stop_on_keys(keys, task, stopped)) \
            if keys is not None else None
        try:
            yield
        finally:
            if watcher is not None:
                watcher.cancel()


async def stop_on_keys(keys: Any, task: asyncio.Future[Any], stopped: asyncio.Event) -> None:
    """Cancel ``task`` on the first Esc or Ctrl-C that ``keys`` (``await keys.get()``) gives."""
    while not task.done():
        if await keys.get() in ("escape", "c-c"):
            stopped.set()
            task.cancel()
            return


def _show(app: InteractiveApp, report: Any) -> None:

    if report.empty:
        _say(app, "no changes to review in the working tree")
        return
    app.say(render.markdown(render_markdown(report), app.term))
    for error in report.errors:
        _say(app, f"✗ {' '.join(error.split())}", "red")
