"""Export of a stored session from the page's API (token required)."""

from __future__ import annotations

import json

import httpx
from tests.web.serving import Served, sse_events

from aiagent.testing import Turn


def test_export_markdown_and_json(served: Served) -> None:
    served.fake.push(Turn(text="Here is <shell>ls</shell> verbatim."))
    sid = served.new_session()
    with served.client() as c:
        with c.stream("POST", f"/api/sessions/{sid}/messages", json={"text": "export me"}) as r:
            assert [e.type for e in sse_events(r.iter_lines())][-1] == "done"
        md = c.get(f"/api/sessions/{sid}/export", params={"format": "md"})
        assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
        assert md.headers["content-disposition"] == \
            f'attachment; filename="aiagent-session-{sid}.md"'
        assert "## User" in md.text and "export me" in md.text
        assert "Here is <shell>ls</shell> verbatim." in md.text  # stored text, unchanged
        data = c.get(f"/api/sessions/{sid}/export", params={"format": "json"})
        assert data.status_code == 200
        stored = json.loads(data.text)
        assert stored["id"] == sid
        assert [m["role"] for m in stored["messages"]] == ["user", "assistant"]
        assert stored["messages"][1]["content"][0]["text"] == "Here is <shell>ls</shell> verbatim."
        assert c.get(f"/api/sessions/{sid}/export").status_code == 200  # md by default


def test_export_needs_the_token_and_a_real_session(served: Served) -> None:
    sid = served.new_session()
    with httpx.Client(base_url=served.base, timeout=30) as bare:
        r = bare.get(f"/api/sessions/{sid}/export")
        assert r.status_code == 401 and r.json() == {"error": "missing or wrong access token"}
        r = bare.get(f"/api/sessions/{sid}/export", params={"token": "nope"})
        assert r.status_code == 401
        r = bare.get(f"/api/sessions/{sid}/export", params={"token": served.token},
                     headers={"Origin": "http://evil.example"})
        assert r.status_code == 403
    with served.client() as c:
        for bad in ("0123456789ab", "..%2F..", "x" * 300):
            r = c.get(f"/api/sessions/{bad}/export")
            assert r.status_code == 404 and "error" in r.json(), bad
        r = c.get(f"/api/sessions/{sid}/export", params={"format": "html"})
        assert r.status_code == 400 and "format" in r.json()["error"]
        # legitimate: a GET with ?token= works (a download link cannot set headers)
    ok = httpx.get(f"{served.base}/api/sessions/{sid}/export", params={"token": served.token})
    assert ok.status_code == 200
