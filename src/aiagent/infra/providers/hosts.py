"""Ollama host values as URLs, without the provider's HTTP stack (the availability probe
runs before any provider is built and must stay light)."""

from __future__ import annotations

from urllib.parse import urlsplit

DEFAULT_PORT = 11434


def host_url(base: str) -> str:
    """A full URL from an ``OLLAMA_HOST``-style value (scheme and port optional)."""
    value = base.strip().rstrip("/") or f"127.0.0.1:{DEFAULT_PORT}"
    if "://" in value:
        return value
    value = "http://" + value
    try:
        return value if urlsplit(value).port else _with_port(value)
    except ValueError:  # a bad port: left for the request to report
        return value


def _with_port(url: str) -> str:
    parts = urlsplit(url)
    return parts._replace(netloc=f"{parts.netloc}:{DEFAULT_PORT}").geturl()
