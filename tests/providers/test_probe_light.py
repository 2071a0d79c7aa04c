"""The provider probe (no key set: is an Ollama server there?) stays off the HTTP stack:
a review or log analysis with no model must not pay for importing httpx."""

from __future__ import annotations

import subprocess
import sys

PROBE = ("import sys; from aiagent.app.provider import ollama_answers; "
         "print(ollama_answers('127.0.0.1:9'), 'httpx' in sys.modules)")


def test_the_ollama_probe_does_not_import_httpx() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, timeout=60).stdout.split()
    assert out == ["False", "False"]


def test_host_urls_are_the_same_from_the_provider_module() -> None:
    from aiagent.infra.providers.hosts import host_url
    from aiagent.infra.providers.ollama import host_url as provider_host_url

    assert provider_host_url is host_url
    assert host_url("example.org") == "http://example.org:11434"
