"""``aiagent serve``: bind a socket, build the Starlette app (API + static page) behind the
guard, print the URL with its token once the server is ready, serve until interrupted."""

from __future__ import annotations

import contextlib
import secrets
import socket
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from aiagent.ui.web.guard import Guard, allowed_hosts

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from aiagent.app import Application

STATIC_FILES = {"app.js": "text/javascript", "app.css": "text/css", "index.html": "text/html"}


@dataclass(frozen=True, slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 0
    allow_remote: bool = False
    token: str = ""
    log_limit: int = 20_000


def build_app(application: Application, token: str, hosts: set[str] | None, *,
              log_limit: int = 20_000, on_ready: Callable[[], None] | None = None) -> Guard:
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException

    from aiagent.store.sessions import SessionStore
    from aiagent.ui.web import api
    from aiagent.ui.web.hub import Hub, HubError

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.hub = Hub(application, SessionStore.open(application.settings.env), log_limit)
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            await app.state.hub.close()

    routes = [*api.ROUTES, *static_routes()]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={HubError: api.hub_error, HTTPException: api.http_error,
                                        Exception: api.hub_error})
    return Guard(app, token, hosts)


def static_routes() -> list[object]:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    folder = resources.files("aiagent.ui.web") / "static"

    def handler(name: str) -> Callable[[Request], object]:
        async def serve(request: Request) -> Response:
            return Response((folder / name).read_bytes(), media_type=STATIC_FILES[name])
        return serve

    routes: list[object] = [Route("/", handler("index.html"), methods=["GET"])]
    routes += [Route(f"/static/{name}", handler(name), methods=["GET"]) for name in STATIC_FILES]
    return routes


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


def serve(application: Application, options: ServeOptions) -> int:
    """Run until Ctrl-C. The first stdout line is the page's URL, printed when ready."""
    import asyncio

    import uvicorn

    token = options.token or secrets.token_urlsafe(24)
    sock = bind(options.host, options.port)
    port = sock.getsockname()[1]
    hosts = None if options.allow_remote else allowed_hosts(options.host, port)
    url = page_url(options.host, port, token)

    def ready() -> None:
        sys.stdout.write(f"aiagent serve: {url}\n")
        sys.stdout.flush()

    app = build_app(application, token, hosts, log_limit=options.log_limit, on_ready=ready)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False,
                            timeout_graceful_shutdown=3)
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve(sockets=[sock]))
    return 0
