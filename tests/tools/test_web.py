"""web_fetch and web_search against a real HTTP server on loopback.

Loopback is a private address, so these tests allow 127.0.0.1 through
``[tools.web] allow_networks``; one test shows that without it the fetch is refused."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import threading
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.tools import ToolContext, ToolError

LOOPBACK = {"allow_networks": ["127.0.0.1/32"]}
PAGE = b"""<html><head><title>Docs page</title><style>body{color:red}</style>
<script>alert('secret script')</script></head>
<body><h1>Install</h1><p>Run <code>pip install x</code> then <a href="/next">read on</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>"""


class Handler(http.server.BaseHTTPRequestHandler):
    seen_hosts: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        Handler.seen_hosts.append(self.headers.get("Host", ""))
        path = self.path
        if path == "/page":
            self._send(200, "text/html; charset=utf-8", PAGE)
        elif path.startswith("/loop/"):
            n = int(path.rsplit("/", 1)[1])
            self._redirect(f"/loop/{n + 1}")
        elif path == "/to-private":
            self._redirect("http://169.254.169.254/latest/meta-data/")
        elif path == "/to-page":
            self._redirect("/page")
        elif path == "/to-file":
            self._redirect("file:///etc/passwd")
        elif path == "/image":
            self._send(200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
        elif path == "/huge":
            self._huge()
        elif path == "/slow":
            time.sleep(5)
            self._send(200, "text/plain", b"late")
        elif path.startswith("/search"):
            body = json.dumps({"results": [{"title": "Result A", "url": "https://a.example",
                                            "content": "about A"}]}).encode()
            self._send(200, "application/json", body)
        else:
            self._send(404, "text/plain", b"no")

    def _send(self, code: int, ctype: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client gave up (the time-out test)
            self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _huge(self) -> None:
        """A 1 GB body, written until the client goes away."""
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(1 << 30))
        self.end_headers()
        chunk = b"a" * 65536
        try:
            for _ in range((1 << 30) // len(chunk)):
                self.wfile.write(chunk)
        except OSError:
            return


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def call(name: str, args: dict[str, Any], **web: Any) -> tuple[str, bool]:
    tool = ToolRegistry().get(name)
    assert tool is not None
    ctx = ToolContext(workspace=__import__("pathlib").Path("."), settings={"web": {**LOOPBACK, **web}})
    try:
        result = asyncio.run(tool.run(args, ctx))
    except ToolError as exc:
        return str(exc), True
    return result.content, result.is_error


def test_html_page_becomes_markdown(server: str) -> None:
    text, error = call("web_fetch", {"url": f"{server}/page"})
    assert not error, text
    assert text.startswith(f"URL: {server}/page\nTitle: Docs page\n\n# Install")
    assert "Run `pip install x` then [read on](/next)." in text
    assert "- one\n- two" in text
    assert "secret script" not in text and "color:red" not in text


def test_redirect_is_followed_and_checked_each_hop(server: str) -> None:
    text, error = call("web_fetch", {"url": f"{server}/to-page"})
    assert not error and f"URL: {server}/page" in text


def test_loopback_refused_without_the_setting(server: str) -> None:
    text, error = call("web_fetch", {"url": f"{server}/page"}, allow_networks=[])
    assert error and "127.0.0.1, a loopback address; refused" in text
    text, error = call("web_fetch", {"url": f"{server}/page"}, allow_networks=[], allow_private=True)
    assert not error and "# Install" in text


def test_redirect_chain_too_long(server: str) -> None:
    text, error = call("web_fetch", {"url": f"{server}/loop/0"}, max_redirects=3)
    assert error and text.startswith("web_fetch: more than 3 redirects")


def test_redirect_to_a_link_local_address_is_refused(server: str) -> None:
    text, error = call("web_fetch", {"url": f"{server}/to-private"})
    assert error and "169.254.169.254, a link-local address; refused" in text


@pytest.mark.parametrize("url", ["file:///etc/passwd", "gopher://example.com/", "ftp://x/y",
                                 "javascript:alert(1)", "//no-scheme"])
def test_only_http_and_https(url: str) -> None:
    text, error = call("web_fetch", {"url": url})
    assert error and "only http and https URLs" in text


def test_redirect_to_file_url_is_refused(server: str) -> None:
    text, error = call("web_fetch", {"url": f"{server}/to-file"})
    assert error and "only http and https URLs are fetched, not 'file'" in text


def test_wrong_content_type_is_refused(server: str) -> None:
    text, error = call("web_fetch", {"url": f"{server}/image"})
    assert error and "is image/png, not a text page" in text


def test_one_gigabyte_body_is_cut_with_bounded_memory(server: str) -> None:
    tracemalloc.start()
    start = time.monotonic()
    text, error = call("web_fetch", {"url": f"{server}/huge"}, max_bytes=1 << 20, max_chars=1000)
    took = time.monotonic() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert not error, text
    assert "(the page was cut after 1048576 bytes)" in text and "more characters not shown" in text
    assert peak < 16 << 20, peak
    assert took < 15


def test_timeout(server: str) -> None:
    start = time.monotonic()
    text, error = call("web_fetch", {"url": f"{server}/slow"}, timeout=1.0)
    assert error and "no answer within 1 s" in text
    assert time.monotonic() - start < 4


def test_connection_goes_to_the_checked_address_with_the_name_kept(server: str) -> None:
    port = server.rsplit(":", 1)[1]
    Handler.seen_hosts.clear()
    text, error = call("web_fetch", {"url": f"http://localhost:{port}/page"})
    assert not error, text
    assert Handler.seen_hosts == [f"localhost:{port}"]


def test_web_search(server: str) -> None:
    text, error = call("web_search", {"query": "a b&c"}, search_url=f"{server}/search?q={{query}}")
    assert not error, text
    assert text == "- [Result A](https://a.example)\n  about A"
    text, error = call("web_search", {"query": "x"})
    assert error and "web_search is not configured" in text


def test_approval_like_any_network_tool(tmp_path: Any) -> None:
    from aiagent.agent.permissions.policy import PermissionPolicy

    tool = ToolRegistry().get("web_fetch")
    verdicts = []
    for mode, interactive in (("read-only", True), ("prompt", True), ("prompt", False), ("full-auto", False)):
        policy = PermissionPolicy(mode, None, workspace=tmp_path, interactive=interactive)  # type: ignore[arg-type]
        verdicts.append(asyncio.run(policy.decide(tool, {"url": "https://example.com"})).verdict)  # type: ignore[arg-type]
    assert verdicts == ["deny", "ask", "deny", "allow"]
