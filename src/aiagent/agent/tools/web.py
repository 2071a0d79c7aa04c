"""``web_fetch``: a URL as readable Markdown; ``web_search``: a configured search endpoint.

Both reach other hosts, so they declare the ``network`` effect and are approved like any
such tool. A fetch is bounded everywhere: http(s) only; at most ``max_redirects`` hops,
each one checked again; the host is resolved here and every address it resolves to must
be public (no loopback, private, link-local, multicast or reserved address, unless
``[tools.web] allow_private``, or in ``allow_networks``), and the connection goes to the address that was checked
(the name is kept for the Host header and TLS), so a second DNS answer cannot point it
elsewhere; only text-like content types; the body is read as a stream and cut at
``max_bytes``; the whole fetch, redirects included, within ``timeout`` seconds.
HTML becomes Markdown with ``markdownify`` (imported on first use).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError, ToolResult

NETWORK = ToolEffect.of("network")
TEXT_TYPES = ("text/", "application/xhtml+xml", "application/xml", "application/json",
              "application/ld+json", "application/rss+xml", "application/atom+xml")
DROPPED_TAGS = ("script", "style", "noscript", "svg", "iframe", "template", "head")
USER_AGENT = "aiagent-web-fetch/1 (+https://github.com/aiagent)"


@dataclass(slots=True)
class WebOptions:
    allow_private: bool = False
    allow_networks: tuple[str, ...] = ()
    timeout: float = 20.0
    max_bytes: int = 5 * 1024 * 1024
    max_redirects: int = 5
    max_chars: int = 100_000
    search_url: str = ""
    search_headers: dict[str, str] | None = None

    @classmethod
    def from_tool_settings(cls, tools: dict[str, Any]) -> WebOptions:
        web = dict(tools.get("web") or {})
        known = {k: web[k] for k in cls.__slots__ if k in web}
        known["allow_networks"] = tuple(known.get("allow_networks") or ())
        return cls(**known)

    def refuses(self, address: str) -> str | None:
        """Why a connection to ``address`` is refused, or None."""
        why = private_reason(address)
        if why is None or self.allow_private:
            return None
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        for network in self.allow_networks:
            try:
                if ip in ipaddress.ip_network(network, strict=False):
                    return None
            except ValueError:
                continue
        return why


@dataclass(slots=True)
class Page:
    url: str
    content_type: str
    body: bytes
    truncated: bool


class WebFetchTool:
    name = "web_fetch"
    description = ("Fetch a web page (http or https) and return it as Markdown: documentation, "
                   "an issue, an API reference. Large pages are cut.")
    effect = NETWORK
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {"url": {"type": "string", "description": "an http:// or https:// URL"}},
        "required": ["url"], "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        options = WebOptions.from_tool_settings(ctx.settings)
        page = await fetch(str(args["url"]), options)
        return ToolResult(render(page, options.max_chars))


class WebSearchTool:
    name = "web_search"
    description = "Search the web through the configured search provider; answers titles, URLs and snippets."
    effect = NETWORK
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1}},
        "required": ["query"], "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        options = WebOptions.from_tool_settings(ctx.settings)
        if not options.search_url:
            raise ToolError("web_search is not configured: set [tools.web] search_url, e.g. "
                            "\"https://searx.example/search?q={query}&format=json\"")
        url = options.search_url.replace("{query}", quote(str(args["query"]), safe=""))
        page = await fetch(url, options, headers=options.search_headers or {})
        if "json" in page.content_type:
            return ToolResult(search_results(page.body, options.max_chars))
        return ToolResult(render(page, options.max_chars))


# ---- fetching ------------------------------------------------------------------------


async def fetch(url: str, options: WebOptions, headers: dict[str, str] | None = None) -> Page:
    """GET ``url`` within every bound of the module docstring; ToolError on any refusal."""
    import httpx

    try:
        async with asyncio.timeout(options.timeout), httpx.AsyncClient(
                follow_redirects=False, trust_env=False,
                timeout=httpx.Timeout(options.timeout)) as client:
            for _hop in range(options.max_redirects + 1):
                target = await _checked_target(url, options)
                page, location = await _get(client, url, target, options, headers or {})
                if location is None:
                    assert page is not None
                    return page
                url = urljoin(url, location)
    except TimeoutError:
        raise ToolError(f"web_fetch: no answer within {options.timeout:g} s ({url})") from None
    except httpx.HTTPError as exc:
        raise ToolError(f"web_fetch: {url}: {type(exc).__name__}: {exc}") from None
    raise ToolError(f"web_fetch: more than {options.max_redirects} redirects (last: {url})")


@dataclass(slots=True)
class Target:
    scheme: str
    host: str
    port: int
    address: str  # the checked IP the connection goes to


async def _checked_target(url: str, options: WebOptions) -> Target:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ToolError(f"web_fetch: only http and https URLs are fetched, not {scheme or 'no scheme'!r} ({url[:200]})")
    host = parts.hostname
    if not host:
        raise ToolError(f"web_fetch: no host in {url[:200]!r}")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise ToolError(f"web_fetch: bad port in {url[:200]!r}") from None
    addresses = await _resolve(host, port)
    for address in addresses:
        why = options.refuses(address)
        if why:
            raise ToolError(f"web_fetch: {host} resolves to {address}, a {why} address; refused "
                            "(allow it with [tools.web] allow_networks or allow_private)")
    return Target(scheme, host, port, addresses[0])


async def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ToolError(f"web_fetch: cannot resolve {host}: {exc.strerror}") from None
    found = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not found:
        raise ToolError(f"web_fetch: {host} has no address")
    return found


def private_reason(address: str) -> str | None:
    """Why ``address`` is not a public one (an IPv4-mapped IPv6 address counts as IPv4)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for why, hit in (("loopback", ip.is_loopback), ("link-local", ip.is_link_local),
                     ("private", ip.is_private), ("multicast", ip.is_multicast),
                     ("unspecified", ip.is_unspecified), ("reserved", ip.is_reserved),
                     ("non-global", not ip.is_global)):
        if hit:
            return why
    return None


async def _get(client: Any, url: str, target: Target, options: WebOptions,
               headers: dict[str, str]) -> tuple[Page | None, str | None]:
    """One request to the checked address: (page, None) or (None, redirect location)."""
    parts = urlsplit(url)
    ip = f"[{target.address}]" if ":" in target.address else target.address
    pinned = parts._replace(netloc=f"{ip}:{target.port}").geturl()
    default_port = target.port == (443 if target.scheme == "https" else 80)
    host_header = target.host if default_port else f"{target.host}:{target.port}"
    request = client.build_request(
        "GET", pinned, headers={"Host": host_header, "User-Agent": USER_AGENT,
                                "Accept": "text/html,text/plain,text/markdown,application/json;q=0.9,*/*;q=0.1",
                                **headers},
        extensions={"sni_hostname": target.host})
    response = await client.send(request, stream=True)
    try:
        if response.is_redirect and response.headers.get("location"):
            return None, response.headers["location"]
        if response.status_code >= 400:
            raise ToolError(f"web_fetch: {url[:200]} answered HTTP {response.status_code}")
        ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype and not ctype.startswith(TEXT_TYPES):
            raise ToolError(f"web_fetch: {url[:200]} is {ctype}, not a text page; refused")
        body, truncated = await _read_capped(response, options.max_bytes)
        return Page(url, response.headers.get("content-type", ""), body, truncated), None
    finally:
        await response.aclose()


async def _read_capped(response: Any, cap: int) -> tuple[bytes, bool]:
    """At most ``cap`` bytes of the (decompressed) body; the rest is never read."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk[: cap - len(body)]
        if len(body) >= cap:
            return bytes(body), True
    return bytes(body), False


# ---- rendering -----------------------------------------------------------------------


def render(page: Page, max_chars: int) -> str:
    """The page as Markdown (HTML converted; text as is), with its URL, cut to ``max_chars``."""
    ctype = page.content_type.lower()
    charset = _charset(ctype)
    text = page.body.decode(charset, "replace")
    title = ""
    if "html" in ctype or (not ctype and "<html" in text[:2000].lower()):
        title, text = html_to_markdown(text)
    lines = [f"URL: {page.url}"] + ([f"Title: {title}"] if title else [])
    if page.truncated:
        lines.append(f"(the page was cut after {len(page.body)} bytes)")
    out = "\n".join(lines) + "\n\n" + text.strip()
    if len(out) > max_chars:
        out = out[:max_chars] + f"\n…[{len(out) - max_chars} more characters not shown]"
    return out


def _charset(ctype: str) -> str:
    import codecs

    for part in ctype.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key == "charset":
            try:
                return codecs.lookup(value.strip('"')).name
            except LookupError:
                break
    return "utf-8"


def html_to_markdown(html: str) -> tuple[str, str]:
    """(title, Markdown) of an HTML page, without scripts, styles and other non-text."""
    import re

    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(DROPPED_TAGS):
        tag.decompose()
    markdown = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    return title[:300], re.sub(r"\n{3,}", "\n\n", markdown)


def search_results(body: bytes, max_chars: int) -> str:
    """SearXNG-style (``results``) or Brave-style (``web.results``) JSON as a short list."""
    try:
        data = json.loads(body)
    except ValueError:
        raise ToolError("web_search: the provider's answer is not JSON") from None
    results = data.get("results") or (data.get("web") or {}).get("results") or []
    lines = []
    for item in results[:10]:
        snippet = " ".join(str(item.get("content") or item.get("description") or "").split())
        lines.append(f"- [{item.get('title', '')}]({item.get('url', '')})\n  {snippet[:300]}")
    return ("\n".join(lines) or "no results")[:max_chars]
