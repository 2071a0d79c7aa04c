"""``aiagent serve``: bind a socket, answer at once, build the rest on first use.

The ASGI app uvicorn runs is :class:`Front` behind the :class:`Guard`: it answers the
static page and ``/healthz`` straight away and prints the URL with its token as soon as the
server accepts connections. The API (Starlette, the agent's Application, the sessions hub,
the scheduler) is built right after, in the background, or by the first API call, whichever
comes first; the guard's Host, Origin and token checks apply to every request either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.frontends.web.guard import ASGIApp, Guard, Receive, Scope, Send, allowed_hosts
from aiagent.frontends.web.hub import Hub, HubError
from aiagent.frontends.web.scheduler import DEFAULT_TICK, Scheduler, file_clock
from aiagent.infra.store.schedules import ScheduleStore
from aiagent.infra.store.sessions import SessionStore

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from aiagent.app import Application

STATIC_FILES = {"app.js": "text/javascript", "app.css": "text/css", "index.html": "text/html",
                "highlight.js": "text/javascript"}


@dataclass(frozen=True, slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 0
    allow_remote: bool = False
    token: str = ""
    log_limit: int = 20_000
    #: the command line's provider/model, for the scheduled runs' settings
    flags: Mapping[str, Any] = field(default_factory=dict)
    #: scheduler: a file holding "now" in epoch seconds (tests), seconds between looks
    clock_file: str = ""
    tick: float = 0.0


def build_app(application: Application, options: ServeOptions) -> Starlette:
    """The API and page as one Starlette app, with the hub and scheduler running."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException

    from aiagent.frontends.web import api, schedule_api

    routes = [*api.ROUTES, *schedule_api.ROUTES]
    app = Starlette(routes=routes,
                    exception_handlers={HubError: api.hub_error, HTTPException: api.http_error,
                                        Exception: api.hub_error})
    app.state.hub = Hub(application, SessionStore.open(application.settings.env),
                        options.log_limit)
    app.state.scheduler = start_scheduler(application, options)
    return app


def start_scheduler(application: Application, options: ServeOptions) -> Any:

    settings = application.settings
    kwargs: dict[str, Any] = {"tick": options.tick or DEFAULT_TICK}
    if options.clock_file:
        kwargs["clock"] = file_clock(options.clock_file)
    scheduler = Scheduler(ScheduleStore.open(settings.env), settings.workspace, options.flags,
                          **kwargs)
    scheduler.start()
    return scheduler


def preload() -> None:
    """Import what :func:`build_app` and a first turn need (in a thread: the event loop
    keeps answering meanwhile)."""
    import importlib

    for name in ("starlette.applications", "aiagent.frontends.web.api", "aiagent.frontends.web.schedule_api",
                 "aiagent.frontends.web.hub", "aiagent.frontends.web.scheduler", "aiagent.infra.store.schedules",
                 "cronsim", "aiagent.app", "aiagent.agent.core.session",
                 "aiagent.agent.core.loop"):
        importlib.import_module(name)


class Front:
    """Lifespan, the page's static files and ``/healthz`` at once; everything else goes to
    the app ``build`` makes (on the first request, or right after start-up)."""

    def __init__(self, build: Callable[[], Starlette], on_ready: Callable[[], None],
                 prepare: Callable[[], None] = preload) -> None:
        self.build, self.on_ready, self.prepare = build, on_ready, prepare
        self.inner: Starlette | None = None
        self._lock: asyncio.Lock | None = None
        self._warm: asyncio.Task[Any] | None = None
        folder = Path(__file__).with_name("static")  # package data (importlib.resources: +30 ms)
        self.static = {f"/static/{name}": (folder / name, kind) for name, kind in STATIC_FILES.items()}
        self.static["/"] = self.static["/static/index.html"]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        path = scope.get("path", "")
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD") and \
                (path in self.static or path == "/healthz"):
            await self._answer(path, send)
            return
        try:
            inner: ASGIApp = await self.app()
        except Exception as exc:  # noqa: BLE001 - told as JSON; the next call tries again
            await _error(send, f"the server could not start its API: {exc}")
            return
        await inner(scope, receive, send)

    async def app(self) -> Starlette:
        if self.inner is None:
            if self._lock is None:
                self._lock = asyncio.Lock()
            async with self._lock:
                if self.inner is None:
                    await asyncio.to_thread(self.prepare)
                    self.inner = self.build()
        return self.inner

    async def _answer(self, path: str, send: Send) -> None:
        if path == "/healthz":
            body, kind = b'{"ok": true}', "application/json"
        else:
            resource, kind = self.static[path]
            body = resource.read_bytes()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", f"{kind}; charset=utf-8".encode()),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
                self.on_ready()
                self._warm = asyncio.ensure_future(self._warm_up())
            elif message["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _warm_up(self) -> None:
        await asyncio.sleep(0.5)  # first the page and its first requests; an API call builds sooner
        try:
            await self.app()
        except Exception as exc:  # noqa: BLE001 - the first API call reports it again
            sys.stderr.write(f"aiagent serve: {exc}\n")

    async def close(self) -> None:
        if self._warm is not None and not self._warm.done():
            self._warm.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._warm
        if self.inner is not None:
            await self.inner.state.scheduler.close()
            await self.inner.state.hub.close()


async def _error(send: Send, message: str) -> None:
    import json

    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": 500,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def page_url(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/#token={token}"


def serve(make_application: Callable[[], Application], options: ServeOptions) -> int:
    """Run until Ctrl-C. The first stdout line is the page's URL, printed when the server
    accepts connections; ``make_application`` is called on the first API use."""
    import uvicorn

    token = options.token or secrets.token_urlsafe(24)
    sock = bind(options.host, options.port)
    port = sock.getsockname()[1]
    hosts = None if options.allow_remote else allowed_hosts(options.host, port)
    url = page_url(options.host, port, token)

    def ready() -> None:
        sys.stdout.write(f"aiagent serve: {url}\n")
        sys.stdout.flush()

    front = Front(lambda: build_app(make_application(), options), ready)
    config = uvicorn.Config(Guard(front, token, hosts), log_level="warning", lifespan="on",
                            access_log=False, timeout_graceful_shutdown=3)
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve(sockets=[sock]))
    return 0
