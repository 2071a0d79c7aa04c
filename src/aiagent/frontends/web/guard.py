"""The server's door: the Host header (against DNS rebinding), the Origin of API calls
(another site's page cannot drive the API), and the access token on every API call.

The token travels in a header (``Authorization: Bearer …``), never a cookie, so a page
from elsewhere cannot make the browser send it: POSTs are CSRF-safe by construction.
A GET may carry it as ``?token=`` (EventSource cannot set headers).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")
SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


class Guard:
    """ASGI middleware. ``hosts``: the host names (with port) the server answers to;
    None accepts any (``--allow-remote``: the token is then the only key)."""

    def __init__(self, app: ASGIApp, token: str, hosts: set[str] | None) -> None:
        self.app, self.token, self.hosts = app, token, hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self.check(scope)
        if problem is not None:
            status, message = problem
            await _json(send, status, {"error": message})
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def check(self, scope: Scope) -> tuple[int, str] | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "").lower()
        if self.hosts is not None and host not in self.hosts:
            return 403, f"host {host!r} not allowed (open the URL the server printed)"
        if not scope["path"].startswith("/api/"):
            return None
        origin = headers.get("origin")
        if origin is not None and not self._same_origin(origin, host):
            return 403, f"origin {origin!r} not allowed"
        if not self._has_token(scope, headers):
            return 401, "missing or wrong access token"
        return None

    def _same_origin(self, origin: str, host: str) -> bool:
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc.lower() == host

    def _has_token(self, scope: Scope, headers: dict[str, str]) -> bool:
        given = headers.get("authorization", "")
        if given.lower().startswith("bearer "):
            given = given[7:].strip()
        else:
            given = headers.get("x-aiagent-token", "")
        if not given and scope["method"] == "GET":
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (query.get("token") or [""])[0]
        return bool(given) and hmac.compare_digest(given.encode(), self.token.encode())


def allowed_hosts(host: str, port: int) -> set[str]:
    """``host:port`` for the bound address; every loopback name for a loopback one."""
    if is_loopback(host):
        names = {"127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host}
    else:
        names = {f"[{host}]" if ":" in host else host}
    return {f"{name.lower()}:{port}" for name in names}


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def _json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode()), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": data})
