"""Helpers: a real ``aiagent serve`` on loopback against FakeLLM, and an SSE reader."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from aiagent.testing import FakeLLM

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
URL = re.compile(r"(http://[^/\s]+)/#token=(\S+)")


@dataclass
class Served:
    proc: subprocess.Popen[str]
    base: str
    token: str
    fake: FakeLLM
    project: Path
    env: dict[str, str]

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def client(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.base, headers=self.headers, timeout=30, **kwargs)

    def new_session(self) -> str:
        with self.client() as c:
            response = c.post("/api/sessions", json={})
            assert response.status_code == 201, response.text
            return str(response.json()["id"])


def isolated_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "OPENAI_", "OLLAMA_", "AIAGENT_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local" / "share"), XDG_CACHE_HOME=str(home / ".cache"),
               NO_COLOR="1")
    (home / ".config").mkdir(parents=True, exist_ok=True)
    return env


def start_server(root: Path, *args: str, key: bool = True, user_config: str = "") -> Iterator[Served]:
    """``user_config``: the text of the user's own config.toml, if any."""
    if user_config:
        (root / "home" / ".config" / "aiagent").mkdir(parents=True, exist_ok=True)
        (root / "home" / ".config" / "aiagent" / "config.toml").write_text(user_config)
    project = root / "proj"
    project.mkdir(exist_ok=True)  # the same folder again: a restarted server
    (project / "notes.txt").write_text("hello world\n")
    with FakeLLM() as fake:
        env = isolated_env(root / "home")
        if key:  # without: the real endpoint, which needs a key (nothing is sent)
            env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="sk-ant-test-123456")
        yield from serve(project, env, fake, *args)


def serve(project: Path, env: dict[str, str], fake: FakeLLM, *args: str) -> Iterator[Served]:
    """``aiagent serve`` in ``project`` until the caller is done; stopped (then killed)."""
    proc = subprocess.Popen([AIAGENT, "serve", "--provider", "anthropic", *args],
                            cwd=project, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = read_line(proc, 30)
    match = URL.search(line)
    if match is None:
        proc.kill()
        raise AssertionError(f"no URL printed: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    try:
        yield Served(proc, match[1], match[2], fake, project, env)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(proc.stdout.readline() if proc.stdout else ""),
                              daemon=True)
    reader.start()
    reader.join(timeout)
    return got[0] if got else ""


@dataclass
class Event:
    id: str
    type: str
    data: dict[str, Any]


def sse_events(lines: Iterator[str]) -> Iterator[Event]:
    """Events from an SSE line stream (comments skipped)."""
    fields: dict[str, str] = {}
    for line in lines:
        if line == "":
            if "event" in fields:
                yield Event(fields.get("id", ""), fields["event"], json.loads(fields.get("data", "{}")))
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value


def run_turn(served: Served, sid: str, text: str, answers: dict[str, str] | None = None,
             *, stop_on: str = "") -> list[Event]:
    """POST a message, read its stream; approvals answered from ``answers`` (substring of
    what is asked -> answer); ``stop_on``: POST stop once a text or tool output holds it."""
    events: list[Event] = []
    with httpx.Client(base_url=served.base, headers=served.headers, timeout=120) as c, c.stream("POST", f"/api/sessions/{sid}/messages",
                                                    json={"text": text}) as response:
        assert response.status_code == 200, response.read()
        for event in sse_events(response.iter_lines()):
            events.append(event)
            if event.type == "approval-request":
                answer = next((a for k, a in (answers or {}).items() if k in event.data["what"]), "deny")
                r = c.post(f"/api/sessions/{sid}/approvals/{event.data['id']}", json={"answer": answer})
                assert r.status_code == 200, r.text
            shown = event.data.get("chunk") or event.data.get("text") or ""
            if stop_on and event.type in ("tool-output", "text") and stop_on in shown:
                assert c.post(f"/api/sessions/{sid}/stop").json()["stopped"] is True
    return events


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def processes_with(marker: str, cwd: Path | None = None) -> list[str]:
    """Command lines holding ``marker``; with ``cwd``, only processes working in or under that
    folder (tests run in parallel: another test's processes may hold the same marker)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if marker in text and cwd is not None:
                where = Path(os.readlink(cmdline.with_name("cwd")))
                if where != cwd and cwd not in where.parents:
                    continue
        except OSError:
            continue
        if marker in text:
            found.append(text)
    return found


CHROMIUM = "/usr/bin/chromium"  # Debian's (.ci/run installs it); never a browser download
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]


@contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium driven by Playwright; the test is skipped, saying why, without it."""
    import shutil

    import pytest

    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.skip("needs chromium: apt-get install chromium (.ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (test extra)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def served_page(browser: Any, served: Served) -> Iterator[Any]:
    """The page of ``served``, signed in and drawn; no script error may have happened on it
    by the end."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{served.base}/#token={served.token}")
    page.wait_for_selector("#workspace:not(:empty)")
    yield page
    context.close()
    assert not errors, errors
