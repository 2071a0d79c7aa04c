"""Open a built site in headless Chromium (Debian's ``chromium``, driven by Playwright) and
read back what each page drew: per page, the labels of every Mermaid SVG, and the diagram
blocks left undrawn. The site is served from a loopback HTTP server (Docusaurus routes need
one); nothing else is fetched — any request off loopback is aborted and counted."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

READ_DIAGRAMS = """() => {
  const svgs = [...document.querySelectorAll('.mermaid svg, .docusaurus-mermaid-container svg, pre.mermaid svg')];
  const undrawn = [...document.querySelectorAll('pre > code.language-mermaid, pre.mermaid:not([data-processed])')]
    .filter(e => !e.querySelector('svg')).length;
  const errors = document.body.innerText.includes('Syntax error in text') ? 1 : 0;
  const labels = svgs.map(svg => [...svg.querySelectorAll('.nodeLabel, .cluster-label .nodeLabel, .edgeLabel')]
    .map(e => e.textContent.trim()).filter(t => t));
  return {labels, undrawn, errors};
}"""


@dataclass
class Drawn:
    labels: list[list[str]] = field(default_factory=list)  # per SVG, its label texts
    undrawn: int = 0
    errors: int = 0


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "chromium is needed (Debian package chromium; .ci/run installs it)"
    return path


@contextmanager
def serve(root: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(root))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a page left before all its files arrived: a broken pipe, not a failure


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def drawn(root: Path, routes: dict[str, int], wait_ms: int = 20000) -> tuple[dict[str, Drawn], list[str]]:
    """``routes``: URL path -> number of diagram blocks expected there. Returns what each
    route drew and the off-loopback requests that were blocked."""
    from playwright.sync_api import sync_playwright

    out: dict[str, Drawn] = {}
    blocked: list[str] = []
    with serve(root) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        page = browser.new_page()
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                   else (blocked.append(route.request.url), route.abort()))
        for route, expected in routes.items():
            page.goto(base + route, wait_until="load")
            if expected:
                with contextlib.suppress(Exception):  # the count below says what is missing
                    page.wait_for_function(f"() => document.querySelectorAll("
                                           f"'.mermaid svg, .docusaurus-mermaid-container svg').length >= {expected}",
                                           timeout=wait_ms)
            out[route] = Drawn(**page.evaluate(READ_DIAGRAMS))
        browser.close()
    return out, blocked
