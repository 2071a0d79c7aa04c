"""Posting the review to a pull request (GitHub) or a merge request (GitLab).

One summary comment plus one inline comment per finding on a line of the diff. Each comment
carries a hidden marker, so a later run on the same PR updates its own comments instead of
piling up new ones. ``--dry-run`` prints the payload without any request.

GitHub: ``GITHUB_TOKEN``, ``GITHUB_REPOSITORY`` (owner/name), the PR number from the event
file ``GITHUB_EVENT_PATH``, ``GITHUB_API_URL`` (default https://api.github.com).
GitLab: ``CI_API_V4_URL``, ``CI_PROJECT_ID``, ``CI_MERGE_REQUEST_IID``, ``GITLAB_TOKEN``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aiagent.engines.review.findings import ReviewFinding
from aiagent.engines.review.pipeline import ReviewReport
from aiagent.engines.review.render import finding_markdown, summary_markdown

SUMMARY_MARKER = "<!-- aiagent-review:summary -->"
INLINE_MARKER = "<!-- aiagent-review:finding:{} -->"
MAX_INLINE = 50
TIMEOUT = 30.0
MAX_PAGES = 20


class ForgeError(Exception):
    """Posting failed: missing settings (exit 2) or an API that is unreachable or refuses
    (exit 3). One line."""

    def __init__(self, message: str, exit_code: int = 3) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True, slots=True)
class Inline:
    finding: ReviewFinding
    body: str


def inline_comments(report: ReviewReport) -> list[Inline]:
    """Findings that sit on lines of the diff (GitHub and GitLab accept comments only there)."""
    files = {f.path: f for f in report.files}
    out = []
    for f in report.findings:
        change = files.get(f.file)
        if change is not None and change.hunk_for(f.start_line, f.end_line) is not None:
            body = f"{INLINE_MARKER.format(f.fingerprint)}\n{finding_markdown(f, '####')}"
            out.append(Inline(f, body))
    return out[:MAX_INLINE]


def summary_body(report: ReviewReport, gate: str) -> str:
    return f"{SUMMARY_MARKER}\n{summary_markdown(report, gate)}"


def _need(env: Mapping[str, str], *names: str) -> list[str]:
    missing = [n for n in names if not env.get(n)]
    if missing:
        raise ForgeError(f"{missing[0]} is not set (needed to post the review)", 2)
    return [env[n] for n in names]


# ---- GitHub --------------------------------------------------------------------------


def github_payload(report: ReviewReport, gate: str) -> dict[str, Any]:
    comments = []
    for item in inline_comments(report):
        f = item.finding
        comment: dict[str, Any] = {"path": f.file, "line": f.end_line, "side": "RIGHT",
                                   "body": item.body}
        if f.start_line != f.end_line:
            comment.update(start_line=f.start_line, start_side="RIGHT")
        comments.append(comment)
    return {"summary": {"body": summary_body(report, gate)},
            "review": {"event": "COMMENT", "comments": comments,
                       "body": "aiagent code review: see the summary comment."}}


def github_pr(env: Mapping[str, str]) -> tuple[str, str, int, str]:
    """(api URL, owner/name, PR number, head sha or "") from the Actions environment."""
    token, repo, event_path = _need(env, "GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH")
    try:
        event = json.loads(Path(event_path).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ForgeError(f"GITHUB_EVENT_PATH {event_path}: cannot read the event: {exc}", 2) from None
    pr = event.get("pull_request") if isinstance(event, dict) else None
    number = (pr or {}).get("number", event.get("number") if isinstance(event, dict) else None)
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        raise ForgeError(f"GITHUB_EVENT_PATH {event_path}: not a pull_request event "
                         "(no pull request number)", 2)
    head = str(((pr or {}).get("head") or {}).get("sha") or "")
    return env.get("GITHUB_API_URL") or "https://api.github.com", repo, number, head


def post_github(report: ReviewReport, gate: str, env: Mapping[str, str]) -> str:
    api, repo, number, head = github_pr(env)
    headers = {"Authorization": f"Bearer {env['GITHUB_TOKEN']}",
               "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
    payload = github_payload(report, gate)
    base = f"{api.rstrip('/')}/repos/{repo}"
    with _Client(headers, "GitHub") as http:
        mine = _find(http.list(f"{base}/issues/{number}/comments"), SUMMARY_MARKER)
        body = payload["summary"]["body"]
        if mine is not None:
            http.send("PATCH", f"{base}/issues/comments/{mine['id']}", {"body": body})
        else:
            http.send("POST", f"{base}/issues/{number}/comments", {"body": body})
        earlier = _by_marker(http.list(f"{base}/pulls/{number}/comments"))
        new, updated = [], 0
        for comment in payload["review"]["comments"]:
            old = earlier.get(_fingerprint_of(comment["body"]))
            if old is None:
                new.append(comment)
            elif old["body"] != comment["body"]:
                http.send("PATCH", f"{base}/pulls/comments/{old['id']}", {"body": comment["body"]})
                updated += 1
        if new:
            review = {**payload["review"], "comments": new}
            if head:
                review["commit_id"] = head
            http.send("POST", f"{base}/pulls/{number}/reviews", review)
    verb = "updated" if mine is not None else "posted"
    return f"summary comment {verb}; {len(new)} new inline comment(s), {updated} updated"


# ---- GitLab --------------------------------------------------------------------------


def gitlab_payload(report: ReviewReport, gate: str,
                   refs: Mapping[str, str] | None = None) -> dict[str, Any]:
    refs = refs or {}
    files = {f.path: f for f in report.files}
    discussions = []
    for item in inline_comments(report):
        f = item.finding
        position = {"position_type": "text", "base_sha": refs.get("base_sha", ""),
                    "start_sha": refs.get("start_sha", ""), "head_sha": refs.get("head_sha", ""),
                    "old_path": files[f.file].old_path or f.file, "new_path": f.file,
                    "new_line": f.end_line}
        discussions.append({"body": item.body, "position": position})
    return {"summary": {"body": summary_body(report, gate)}, "discussions": discussions}


def post_gitlab(report: ReviewReport, gate: str, env: Mapping[str, str]) -> str:
    api, project, iid, token = _need(env, "CI_API_V4_URL", "CI_PROJECT_ID",
                                     "CI_MERGE_REQUEST_IID", "GITLAB_TOKEN")
    if not iid.isdigit():
        raise ForgeError(f"CI_MERGE_REQUEST_IID {iid!r} is not a number", 2)
    base = f"{api.rstrip('/')}/projects/{quote(project, safe='')}/merge_requests/{iid}"
    with _Client({"PRIVATE-TOKEN": token}, "GitLab") as http:
        refs = http.send("GET", base, None).get("diff_refs") or {}
        payload = gitlab_payload(report, gate, refs)
        mine = _find(http.list(f"{base}/notes"), SUMMARY_MARKER)
        body = payload["summary"]["body"]
        if mine is not None:
            http.send("PUT", f"{base}/notes/{mine['id']}", {"body": body})
        else:
            http.send("POST", f"{base}/notes", {"body": body})
        earlier: dict[str, tuple[str, dict[str, Any]]] = {}
        for discussion in http.list(f"{base}/discussions"):
            for note in discussion.get("notes") or []:
                key = _fingerprint_of(str(note.get("body", "")))
                if key:
                    earlier[key] = (str(discussion.get("id")), note)
        new = updated = 0
        for item in payload["discussions"]:
            old = earlier.get(_fingerprint_of(item["body"]))
            if old is None:
                http.send("POST", f"{base}/discussions", item)
                new += 1
            elif old[1].get("body") != item["body"]:
                http.send("PUT", f"{base}/discussions/{old[0]}/notes/{old[1]['id']}",
                          {"body": item["body"]})
                updated += 1
    verb = "updated" if mine is not None else "posted"
    return f"summary note {verb}; {new} new discussion(s), {updated} updated"


# ---- shared --------------------------------------------------------------------------


def _fingerprint_of(body: str) -> str:
    head, _, rest = body.partition("<!-- aiagent-review:finding:")
    key, _, _ = rest.partition(" -->")
    return key if rest and key.isalnum() else ""


def _by_marker(comments: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for comment in comments:
        key = _fingerprint_of(str(comment.get("body", "")))
        if key and key not in out:
            out[key] = comment
    return out


def _find(items: list[dict[str, Any]], marker: str) -> dict[str, Any] | None:
    return next((c for c in items if str(c.get("body", "")).startswith(marker)), None)


class _Client:
    def __init__(self, headers: dict[str, str], name: str) -> None:
        import httpx

        self.name = name
        self.http = httpx.Client(headers={**headers, "User-Agent": "aiagent-review"},
                                 timeout=TIMEOUT, follow_redirects=False)

    def __enter__(self) -> _Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    def send(self, method: str, url: str, body: Any) -> Any:
        import httpx

        try:
            response = self.http.request(method, url, json=body)
        except httpx.HTTPError as exc:
            raise ForgeError(f"cannot reach the {self.name} API at {url}: "
                             f"{type(exc).__name__}: {str(exc)[:200]}") from None
        if response.status_code >= 400:
            text = " ".join(response.text.split())[:200]
            raise ForgeError(f"the {self.name} API refused {method} {url}: "
                             f"HTTP {response.status_code} {text}")
        self.last = response
        return response.json() if response.content else {}

    def list(self, url: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        next_url: str | None = f"{url}?per_page=100"
        for _ in range(MAX_PAGES):
            if next_url is None:
                break
            page = self.send("GET", next_url, None)
            out += [c for c in page if isinstance(c, dict)] if isinstance(page, list) else []
            link = self.last.links.get("next", {}).get("url")
            # follow only the same API: a Link elsewhere would receive the token
            next_url = link if link and link.startswith(url.split("?")[0]) else None
        return out
