# ruff: noqa
"""A small HTTP client in the style of popular Python HTTP libraries."""

from __future__ import annotations

import hashlib
import json
import os
import re
import ssl
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Iterator

import httpx

DEFAULT_TIMEOUT = 10.0
USER_AGENT = "tinyhttp/1.4"
RETRY_STATUSES = frozenset({429, 502, 503, 504})
_HEADER_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


class HTTPError(Exception):
    def __init__(self, response: "Response") -> None:
        super().__init__(f"{response.status_code} for {response.url}")
        self.response = response


@dataclass
class Response:
    status_code: int
    url: str
    headers: dict[str, str]
    content: bytes = b""

    @property
    def text(self) -> str:
        charset = self.headers.get("content-type", "").partition("charset=")[2] or "utf-8"
        return self.content.decode(charset, "replace")

    def json(self) -> Any:
        return json.loads(self.content)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise HTTPError(self)


@dataclass
class Client:
    base_url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    retries: int = 2
    verify: bool | str = True

    def __post_init__(self) -> None:
        self.headers.setdefault("user-agent", USER_AGENT)
        self._transport = httpx.Client(verify=self._ssl_context(), timeout=self.timeout)

    def _ssl_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context()
        if isinstance(self.verify, str):
            context.load_verify_locations(self.verify)
        return context

    def build_url(self, path: str, params: dict[str, Any] | None = None) -> str:
        url = urllib.parse.urljoin(self.base_url, path)
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params, doseq=True)
        return url

    def request(self, method: str, path: str, **kwargs: Any) -> Response:
        url = self.build_url(path, kwargs.pop("params", None))
        headers = {**self.headers, **kwargs.pop("headers", {})}
        for name in headers:
            if not _HEADER_TOKEN.match(name):
                raise ValueError(f"invalid header name {name!r}")
        for attempt in range(self.retries + 1):
            raw = self._transport.request(method, url, headers=headers, **kwargs)
            response = Response(raw.status_code, str(raw.url), dict(raw.headers), raw.content)
            if response.status_code not in RETRY_STATUSES or attempt == self.retries:
                return response
            time.sleep(self._backoff(attempt, response.headers.get("retry-after")))
        raise AssertionError("unreachable")

    @staticmethod
    def _backoff(attempt: int, retry_after: str | None) -> float:
        if retry_after and retry_after.isdigit():
            return float(retry_after)
        return min(0.5 * 2**attempt, 8.0)

    def get(self, path: str, **kwargs: Any) -> Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Response:
        return self.request("POST", path, **kwargs)

    def stream_lines(self, path: str) -> Iterator[str]:
        with self._transport.stream("GET", self.build_url(path)) as raw:
            yield from raw.iter_lines()


def netrc_auth(host: str) -> tuple[str, str] | None:
    import netrc

    path = os.path.expanduser("~/.netrc")
    if not os.path.exists(path):
        return None
    entry = netrc.netrc(path).authenticators(host)
    return (entry[0], entry[2]) if entry else None


def cache_key(method: str, url: str, body: bytes = b"") -> str:
    digest = hashlib.sha256()
    digest.update(method.encode())
    digest.update(url.encode())
    digest.update(body)
    return digest.hexdigest()


def etag_for(body: bytes) -> str:
    return '"' + hashlib.md5(body, usedforsecurity=False).hexdigest() + '"'


def download(client: Client, path: str, dest: str) -> int:
    total = 0
    response = client.get(path)
    response.raise_for_status()
    with open(dest, "wb") as fh:
        total += fh.write(response.content)
    return total


def fetch_all(client: Client, paths: list[str]) -> list[Any]:
    return [client.get(p).json() for p in paths]


MESSAGES = {
    "password": "Password",
    "password_hint": "At least 12 characters",
    "token_expired": "Your session token expired, please sign in again",
    "secret_question": "What was the name of your first pet?",
}
