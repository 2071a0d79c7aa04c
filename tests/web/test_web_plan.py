"""Plans on the real ``aiagent serve``: the SSE stream carries a ``plan`` event between the
call and its result (never an approval), a refused plan sends none, and the session's
JSON carries the last plan for a page that opens it later."""

from __future__ import annotations

from tests.web.serving import Served, sse_events

from aiagent.testing import ToolCall, Turn

FIRST = {"explanation": "two steps", "plan": [
    {"step": "Look around", "status": "in_progress"}, {"step": "Report", "status": "pending"}]}
SECOND = {"plan": [{"step": "Look around", "status": "completed"},
                   {"step": "Report", "status": "in_progress"}]}
BAD = {"plan": [{"step": "x", "status": "in_progress"}, {"step": "y", "status": "in_progress"}]}


def stream(served: Served, sid: str, text: str) -> list[tuple[str, dict]]:
    with served.client() as c, c.stream("POST", f"/api/sessions/{sid}/messages",
                                         json={"text": text}) as response:
        assert response.status_code == 200, response.read()
        return [(e.type, e.data) for e in sse_events(response.iter_lines())]


def test_plan_events_and_the_stored_plan(served: Served) -> None:
    served.fake.push(
        Turn(text="Planning.", tool_calls=[ToolCall("update_plan", FIRST)]),
        Turn(text="Bad one.", tool_calls=[ToolCall("update_plan", BAD)]),
        Turn(text="Progress.", tool_calls=[ToolCall("update_plan", SECOND)]),
        Turn(text="Reported."))
    sid = served.new_session()
    with served.client() as c:
        assert c.get(f"/api/sessions/{sid}").json()["plan"] is None  # none yet
    events = stream(served, sid, "plan it")
    kinds = [k for k, _ in events]
    assert "approval-request" not in kinds and kinds[-1] == "done"
    plans = [d for k, d in events if k == "plan"]
    assert plans == [
        {"id": plans[0]["id"], "explanation": "two steps",
         "steps": [{"step": "Look around", "status": "in_progress"},
                   {"step": "Report", "status": "pending"}]},
        {"id": plans[1]["id"], "explanation": "",
         "steps": [{"step": "Look around", "status": "completed"},
                   {"step": "Report", "status": "in_progress"}]}]
    results = [d for k, d in events if k == "tool-result"]
    assert [r["is_error"] for r in results] == [False, True, False]
    assert "2 steps are in_progress (plan[0], plan[1])" in results[1]["content"]
    at = kinds.index("plan")
    assert kinds[at - 1] == "tool-call" and kinds[at + 1] == "tool-result"
    assert events[at - 1][1]["id"] == plans[0]["id"] == events[at + 1][1]["id"]
    with served.client() as c:
        stored = c.get(f"/api/sessions/{sid}").json()
    assert stored["plan"] == plans[-1]
    assert served.fake.remaining == 0


def test_a_hosted_engines_plan_is_shown_the_same_way() -> None:
    """Another ACP engine's ``plan`` update becomes our plan event; a malformed or huge
    one is left out, never raised."""
    from aiagent.contracts.events import PlanStep, PlanUpdatedEvent
    from aiagent.frontends.web.acp_events import UpdateMapper

    mapper = UpdateMapper()
    good = {"sessionUpdate": "plan", "entries": [
        {"content": "Build", "priority": "high", "status": "completed"},
        {"content": "Ship", "priority": "low", "status": "in_progress"}]}
    assert mapper.events(good) == [PlanUpdatedEvent("", (PlanStep("Build", "completed"),
                                                          PlanStep("Ship", "in_progress")))]
    entry = {"content": "x", "priority": "low", "status": "pending"}
    for bad in ("nope", None, [entry] * 10_000, [{"content": "x", "status": "done"}],
                [{"content": "x" * (1 << 20), "status": "pending"}], [7], [{"status": "pending"}]):
        assert mapper.events({"sessionUpdate": "plan", "entries": bad}) == [], repr(bad)[:80]
    assert len(mapper.events(good)) == 1
