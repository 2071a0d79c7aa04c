"""Helpers for the code review tests: git in a test repository, and fake GitHub/GitLab
APIs (real HTTP servers on loopback that keep state and record every request)."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

BASE_APP = '''\
import os


def load(path):
    with open(path) as handle:
        return handle.read()


def total(items):
    result = 0
    for item in items:
        result += item
    return result
'''

FEATURE_APP = '''\
import os
import subprocess


def load(path):
    with open(path) as handle:
        return handle.read()


def total(items):
    result = 0
    for item in items:
        result += item.price
    subprocess.call("echo " + str(result), shell=True)
    return result
'''


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
                               "HOME": str(cwd), "PATH": "/usr/bin:/bin"})
    return done.stdout.strip()


class Recorder(ThreadingHTTPServer):
    """A fake forge: ``routes`` map (METHOD, path) to a handler(server, body) -> (status, json)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        raise NotImplementedError


def served(server: Recorder) -> Iterator[Recorder]:
    """``server`` answering on a thread while the caller (a fixture) is suspended."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: Recorder

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _do(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        path = self.path.split("?")[0]
        with self.server.lock:
            self.server.requests.append({"method": self.command, "path": path,
                                         "query": self.path.partition("?")[2], "json": body,
                                         "headers": dict(self.headers)})
            status, answer = self.server.answer(self.command, path, body)
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = _do


class FakeGitHub(Recorder):
    def __init__(self, repo: str = "octo/app", pr: int = 7) -> None:
        super().__init__()
        self.base = f"/repos/{repo}"
        self.pr = pr
        self.issue_comments: list[dict[str, Any]] = []
        self.review_comments: list[dict[str, Any]] = []
        self.next_id = 100

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        b, n = self.base, self.pr
        if (method, path) == ("GET", f"{b}/issues/{n}/comments"):
            return 200, self.issue_comments
        if (method, path) == ("POST", f"{b}/issues/{n}/comments"):
            self.issue_comments.append({"id": self._id(), "body": body["body"]})
            return 201, self.issue_comments[-1]
        if method == "PATCH" and path.startswith(f"{b}/issues/comments/"):
            return self._patch(self.issue_comments, path, body)
        if (method, path) == ("GET", f"{b}/pulls/{n}/comments"):
            return 200, self.review_comments
        if (method, path) == ("POST", f"{b}/pulls/{n}/reviews"):
            for c in body["comments"]:
                self.review_comments.append({"id": self._id(), **c})
            return 200, {"id": self._id()}
        if method == "PATCH" and path.startswith(f"{b}/pulls/comments/"):
            return self._patch(self.review_comments, path, body)
        return 404, {"message": "Not Found"}

    def _patch(self, items: list[dict[str, Any]], path: str, body: Any) -> tuple[int, Any]:
        wanted = int(path.rsplit("/", 1)[1])
        for item in items:
            if item["id"] == wanted:
                item["body"] = body["body"]
                return 200, item
        return 404, {"message": "Not Found"}


class FakeGitLab(Recorder):
    REFS = {"base_sha": "b" * 40, "start_sha": "s" * 40, "head_sha": "h" * 40}

    def __init__(self, project: str = "group/app", iid: int = 3) -> None:
        super().__init__()
        self.mr = f"/api/v4/projects/{project.replace('/', '%2F')}/merge_requests/{iid}"
        self.notes: list[dict[str, Any]] = []
        self.discussions: list[dict[str, Any]] = []
        self.next_id = 500

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        m = self.mr
        if (method, path) == ("GET", m):
            return 200, {"iid": 3, "diff_refs": self.REFS}
        if (method, path) == ("GET", f"{m}/notes"):
            return 200, self.notes
        if (method, path) == ("POST", f"{m}/notes"):
            self.notes.append({"id": self._id(), "body": body["body"]})
            return 201, self.notes[-1]
        if method == "PUT" and path.startswith(f"{m}/notes/"):
            return self._put(self.notes, int(path.rsplit("/", 1)[1]), body)
        if (method, path) == ("GET", f"{m}/discussions"):
            return 200, self.discussions
        if (method, path) == ("POST", f"{m}/discussions"):
            note = {"id": self._id(), "body": body["body"], "position": body["position"]}
            self.discussions.append({"id": f"d{self._id()}", "notes": [note]})
            return 201, self.discussions[-1]
        if method == "PUT" and "/discussions/" in path:
            parts = path.split("/")
            for d in self.discussions:
                if d["id"] == parts[-3]:
                    return self._put(d["notes"], int(parts[-1]), body)
        return 404, {"message": "404 Not Found"}

    def _put(self, items: list[dict[str, Any]], wanted: int, body: Any) -> tuple[int, Any]:
        for item in items:
            if item["id"] == wanted:
                item["body"] = body["body"]
                return 200, item
        return 404, {"message": "404 Not Found"}


