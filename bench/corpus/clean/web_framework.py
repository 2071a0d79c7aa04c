# ruff: noqa
"""A micro web framework core in the style of popular Python web frameworks."""

from __future__ import annotations

import html
import json
import mimetypes
import os
import re
import sqlite3
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from markupsafe import Markup, escape

Handler = Callable[..., Any]
_PARAM = re.compile(r"<(?:(?P<conv>int|str|path):)?(?P<name>\w+)>")
CONVERTERS = {"int": r"\d+", "str": r"[^/]+", "path": r".+"}


class Request:
    def __init__(self, environ: dict[str, Any]) -> None:
        self.environ = environ
        self.method = environ.get("REQUEST_METHOD", "GET")
        self.path = environ.get("PATH_INFO", "/")

    @property
    def args(self) -> dict[str, str]:
        from urllib.parse import parse_qsl

        return dict(parse_qsl(self.environ.get("QUERY_STRING", "")))


class Response:
    def __init__(self, body: str | bytes = b"", status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.body = body.encode() if isinstance(body, str) else body
        self.status = status
        self.headers = headers or {"content-type": "text/html; charset=utf-8"}

    @property
    def status_line(self) -> str:
        return f"{self.status} {HTTPStatus(self.status).phrase}"


class Router:
    def __init__(self) -> None:
        self.rules: list[tuple[re.Pattern[str], str, Handler]] = []

    def add(self, rule: str, methods: tuple[str, ...], handler: Handler) -> None:
        def convert(match: re.Match[str]) -> str:
            pattern = CONVERTERS[match.group("conv") or "str"]
            return f"(?P<{match.group('name')}>{pattern})"

        compiled = re.compile("^" + _PARAM.sub(convert, rule) + "$")
        for method in methods:
            self.rules.append((compiled, method, handler))

    def match(self, method: str, path: str) -> tuple[Handler, dict[str, str]] | None:
        for pattern, allowed, handler in self.rules:
            found = pattern.match(path)
            if found and allowed == method:
                return handler, found.groupdict()
        return None


class App:
    def __init__(self, static_folder: str = "static") -> None:
        self.router = Router()
        self.static_folder = os.path.abspath(static_folder)

    def route(self, rule: str, methods: tuple[str, ...] = ("GET",)) -> Callable[[Handler], Handler]:
        def decorator(fn: Handler) -> Handler:
            self.router.add(rule, methods, fn)
            return fn

        return decorator

    def dispatch(self, request: Request) -> Response:
        found = self.router.match(request.method, request.path)
        if found is None:
            return Response(f"<h1>Not Found</h1><p>{html.escape(request.path)}</p>", 404)
        handler, params = found
        result = handler(request, **params)
        if isinstance(result, Response):
            return result
        if isinstance(result, dict):
            return Response(json.dumps(result), headers={"content-type": "application/json"})
        return Response(str(result))

    def send_static(self, filename: str) -> Response:
        full = os.path.abspath(os.path.join(self.static_folder, filename))
        if not full.startswith(self.static_folder + os.sep):
            return Response("forbidden", 403)
        kind = mimetypes.guess_type(full)[0] or "application/octet-stream"
        with open(full, "rb") as fh:
            return Response(fh.read(), headers={"content-type": kind})


def render_row(cells: list[str]) -> Markup:
    return Markup("<tr>{}</tr>").format(Markup("").join(Markup("<td>{}</td>").format(c) for c in cells))


def flash_message(text: str) -> Markup:
    return Markup('<div class="flash">') + escape(text) + Markup("</div>")


class Database:
    """A thin wrapper over sqlite3 with named tables."""

    TABLES = ("users", "sessions", "posts")

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path)

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def count(self, table: str) -> int:
        if table not in self.TABLES:
            raise ValueError(table)
        return self.execute(f"SELECT count(*) FROM {table}").fetchone()[0]

    def insert(self, table: str, row: dict[str, Any]) -> None:
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        self.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", tuple(row.values()))

    def migrate(self) -> None:
        for table in self.TABLES:
            self.conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (id INTEGER PRIMARY KEY, data TEXT)")


app = App()


@app.route("/posts/<int:post_id>")
def show_post(request: Request, post_id: str) -> dict[str, Any]:
    db = Database("blog.db")
    row = db.execute("SELECT id, data FROM posts WHERE id = ?", (int(post_id),)).fetchone()
    return {"id": row[0], "data": row[1]} if row else {"error": "not found"}


@app.route("/static/<path:filename>")
def static(request: Request, filename: str) -> Response:
    return app.send_static(filename)


@app.route("/hello/<name>")
def hello(request: Request, name: str) -> Response:
    return Response(f"<p>Hello {html.escape(name)}</p>")
