"""The page in a real headless Chromium (Debian's, driven by Playwright; never a browser
download): send, stream, approve, stop, reload, sidebar, and the layout at several widths.

Screenshots go to ``$AIAGENT_TEST_ARTIFACTS/web`` (default: a temporary folder), printed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from tests.web.serving import Served, chromium, served_page, start_server

from aiagent.testing import ToolCall, Turn

CONTROLS = "button, textarea, input, select, summary, a[href]"
WIDTHS = (320, 360, 768, 1280, 1920)


# a second engine, so the page shows its engine selector (its command fails at once)
ENGINES = """
[web.engines.other-engine-with-a-long-name]
command = "sh"
args = ["-c", "echo no-such-engine >&2; exit 3"]
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from start_server(tmp_path_factory.mktemp("serve"), user_config=ENGINES)


@pytest.fixture(scope="module")
def artifacts() -> Path:
    root = Path(os.environ.get("AIAGENT_TEST_ARTIFACTS") or tempfile.gettempdir())
    folder = root / "web"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {folder}")
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def page(browser: Any, served: Served) -> Iterator[Any]:
    with served_page(browser, served) as page:
        yield page


def test_send_stream_approve_and_markdown_is_escaped(page: Any, served: Served) -> None:
    served.fake.push(
        Turn(text="I will run it.", tool_calls=[ToolCall("shell_command", {"command": "echo browser-ok"})]),
        Turn(text="**Done**: <img src=x onerror=alert(1)> <b>not html</b>\n\n<shell>ls -la</shell>",
             text_chunks=6, chunk_delay=0.02),
    )
    page.locator("#empty").wait_for(state="visible")  # the empty state with example prompts
    page.fill("#input", "please run it")
    page.press("#input", "Enter")
    page.get_by_role("button", name="Allow once").click()
    page.wait_for_selector(".msg.assistant strong:text('Done')")
    page.locator("#send").wait_for(state="visible")  # the turn ended: Send is back, Stop gone
    assert "browser-ok" in page.locator(".tool .result").first.text_content()
    assert page.locator(".approval .answered").inner_text() == "Answered: Allow once"
    messages = page.locator("#messages")
    assert messages.locator("img, b, script").count() == 0  # model text is never HTML
    assert "<b>not html</b>" in messages.inner_text()
    assert page.locator(".term pre").last.inner_text() == "ls -la"  # a <shell> block
    assert not page.locator("#stop").is_visible()
    assert "out tokens" in page.locator("#usage").inner_text()
    assert served.fake.remaining == 0


def test_reload_keeps_the_history(page: Any) -> None:
    page.reload()
    page.wait_for_selector(".msg.user:text('please run it')")
    assert "Done" in page.locator(".msg.assistant").last.inner_text()
    assert "browser-ok" in page.locator(".tool .result").first.text_content()
    assert page.locator("#title").inner_text() == "please run it"
    page.wait_for_selector(".sessions li.current")  # the list is drawn after the messages
    assert page.locator(".sessions li.current").count() == 1


def test_a_message_typed_while_a_new_session_opens_goes_to_it(page: Any, served: Served) -> None:
    # the page's fetch of a session's history is held back 1.5 s, so the message is typed
    # while "New chat" is still opening: it must wait for it, land in the new session and stay
    page.evaluate("""() => {
        const real = window.fetch;
        window.fetch = async (url, options) => {
            const response = await real(url, options);
            if (/\\/api\\/sessions\\/[^/]+$/.test(url) && (!options || options.method === "GET"))
                await new Promise((done) => setTimeout(done, 1500));
            return response;
        };
    }""")
    old = page.evaluate("() => sessionStorage.getItem('aiagent.session')")
    served.fake.push(Turn(text="answered in the new one"))
    page.click("#clear")
    page.fill("#input", "typed at once")
    page.press("#input", "Enter")
    page.locator(".msg.assistant", has_text="answered in the new one").wait_for()
    assert page.locator(".msg.user").all_inner_texts() == ["typed at once"]
    new = page.evaluate("() => sessionStorage.getItem('aiagent.session')")
    assert new != old
    with served.client() as c:
        texts = [b.get("text") for m in c.get(f"/api/sessions/{new}").json()["messages"] for b in m["content"]]
        assert "typed at once" in texts
        if old:
            old_texts = [b.get("text") for m in c.get(f"/api/sessions/{old}").json()["messages"]
                         for b in m["content"]]
            assert "typed at once" not in old_texts
    page.reload()
    page.wait_for_selector(".msg.user:text('typed at once')")


def test_stop_with_escape(page: Any, served: Served) -> None:
    served.fake.push(Turn(text="long one", tool_calls=[ToolCall(
        "shell_command", {"command": "echo started-long; sleep 30"})]))
    page.fill("#input", "run the long one")
    page.press("#input", "Enter")
    page.get_by_role("button", name="Allow once").click()
    page.wait_for_selector(".tool .output:text('started-long')")
    assert page.locator("#stop").is_visible()
    page.keyboard.press("Escape")
    page.wait_for_selector("#status:text('stopped: interrupted')")
    page.locator("#send").wait_for(state="visible")
    assert served.fake.remaining == 0


def test_edit_approval_shows_the_diff_and_deny_keeps_the_file(page: Any, served: Served) -> None:
    served.fake.push(Turn(text="editing", tool_calls=[ToolCall(
        "write_file", {"file_path": "notes.txt", "content": "<script>x</script>\n"})]),
        Turn(text="left it alone"))
    page.fill("#input", "edit the notes")
    page.press("#input", "Enter")
    card = page.locator(".approval").last
    card.locator(".diff").wait_for()
    assert "-hello world" in card.locator(".diff .del").all_inner_texts()[-1]
    assert "+<script>x</script>" in card.locator(".diff .add").all_inner_texts()[-1]
    card.get_by_role("button", name="Deny").click()
    page.locator(".msg.assistant", has_text="left it alone").wait_for()
    page.locator("#send").wait_for(state="visible")
    assert (served.project / "notes.txt").read_text() == "hello world\n"
    assert page.locator("#messages script").count() == 0


def test_code_is_highlighted_with_text_nodes_and_cost_shown(page: Any, served: Served) -> None:
    code = "def f():\n    return '<img src=x onerror=alert(1)>'  # note 42\n"
    served.fake.push(Turn(text=f"Here:\n\n```python\n{code}```\n\n<shell>echo \"hi\" # c</shell>"))
    page.fill("#input", "show code")
    page.press("#input", "Enter")
    block = page.locator(".msg.assistant pre code.lang-python").last
    block.wait_for()
    page.locator("#send").wait_for(state="visible")
    assert block.text_content() == code.rstrip("\n")  # the text is unchanged
    assert block.locator("span.tok-kw").first.inner_text() == "def"
    assert "<img src=x onerror=alert(1)>" in block.locator("span.tok-str").first.inner_text()
    assert block.locator("span.tok-com").first.inner_text() == "# note 42"
    assert page.locator("#messages img, #messages script").count() == 0
    term = page.locator(".term pre code").last
    assert term.locator("span.tok-str").first.inner_text() == '"hi"'
    assert term.text_content() == 'echo "hi" # c'
    usage = page.locator("#usage").inner_text()  # claude-sonnet-4-5 has a known price
    assert "out tokens" in usage and "$" in usage
    assert served.fake.remaining == 0


def test_export_downloads_the_stored_session(page: Any) -> None:
    for kind, words in (("md", "## User"), ("json", '"role": "user"')):
        with page.expect_download() as download:
            page.click(f"#export-{kind}")
        path = download.value.path()
        assert download.value.suggested_filename.endswith(f".{kind}")
        text = Path(path).read_text()
        assert words in text and "show code" in text


def test_schedule_form_adds_and_removes(page: Any) -> None:
    page.on("dialog", lambda dialog: dialog.accept())
    page.fill("#cron", "61 * * * *")
    page.fill("#cron-prompt", "nightly notes")
    page.click("#schedule-add")
    page.wait_for_selector("#status.error:text('Bad minute')")
    assert page.locator("#schedules li").count() == 0  # nothing written
    for prompt in ("nightly notes", "weekly summary"):
        page.fill("#cron", "17 3 * * *")
        page.fill("#cron-prompt", prompt)
        page.click("#schedule-add")
        page.locator("#schedules li", has_text=prompt).wait_for()
    page.locator("#schedules li", has_text="nightly notes").get_by_role("button", name="Remove").click()
    page.locator("#schedules li", has_text="nightly notes").wait_for(state="detached")
    assert page.locator("#schedules li").count() == 1  # one stays for the layout checks


def test_shift_enter_is_a_new_line_and_sidebar_toggles(page: Any) -> None:
    page.fill("#input", "line one")
    page.press("#input", "Shift+Enter")
    page.type("#input", "line two")
    assert page.input_value("#input") == "line one\nline two"
    page.fill("#input", "")
    toggle = page.locator("#toggle-sidebar")
    assert page.locator("#sidebar").is_visible()
    toggle.click()
    assert not page.locator("#sidebar").is_visible() and toggle.get_attribute("aria-expanded") == "false"
    toggle.click()
    assert page.locator("#sidebar").is_visible()


PLAN = {"explanation": "fix then test", "plan": [
    {"step": "Read the failing test", "status": "completed"},
    {"step": "Fix <b>the</b> parser " + "with a long step text " * 6, "status": "in_progress"},
    {"step": "Run the whole suite", "status": "pending"}]}


def test_the_plan_is_a_checklist_above_the_composer(page: Any, served: Served) -> None:
    """In a new session, left open with its plan shown for the layout test below."""
    served.fake.push(Turn(text="Planning.", tool_calls=[ToolCall("update_plan", PLAN)]),
                     Turn(text="Planned."))
    old = page.evaluate("() => sessionStorage.getItem('aiagent.session')")
    page.click("#clear")
    page.wait_for_function("(old) => sessionStorage.getItem('aiagent.session') !== old", arg=old)
    assert page.locator("#plan").is_hidden()
    page.fill("#input", "make a plan")
    page.press("#input", "Enter")
    page.wait_for_selector("#plan li.in_progress")
    page.locator("#send").wait_for(state="visible")
    assert page.locator(".approval").count() == 0  # never asked
    for _ in range(2):  # live, then after a reload (from the stored session)
        plan = page.locator("#plan")
        assert plan.locator(".plan-head").inner_text() == "Plan · 1/3 done · fix then test"
        assert plan.locator("li").evaluate_all("(lis) => lis.map(l => l.className)") == [
            "completed", "in_progress", "pending"]
        assert "Fix <b>the</b> parser" in plan.locator("li").nth(1).inner_text()
        assert plan.locator("li .step").nth(1).get_attribute("title") == PLAN["plan"][1]["step"].strip()
        assert plan.locator("b").count() == 0  # step text is text, never HTML
        box, composer = plan.bounding_box(), page.locator("#composer").bounding_box()
        assert box["y"] + box["height"] <= composer["y"] + 0.5
        page.reload()
        page.wait_for_selector("#plan li.in_progress")


def overlaps(page: Any) -> list[str]:
    boxes = page.evaluate("""(selector) => [...document.querySelectorAll(selector)]
        .filter(e => e.offsetParent !== null || e.getClientRects().length)
        .map(e => { const r = e.getBoundingClientRect();
                    return {name: e.tagName + '#' + (e.id || e.className) + ' ' + (e.textContent || '').trim().slice(0, 20),
                            x: r.x, y: r.y, w: r.width, h: r.height}; })
        .filter(b => b.w > 0 && b.h > 0)""", CONTROLS)
    found = []
    for a, b in combinations(boxes, 2):
        if (a["x"] + a["w"] > b["x"] + 0.5 and b["x"] + b["w"] > a["x"] + 0.5
                and a["y"] + a["h"] > b["y"] + 0.5 and b["y"] + b["h"] > a["y"] + 0.5):
            found.append(f"{a['name']} / {b['name']}")
    return found


def outside(page: Any, width: int) -> list[str]:
    return page.evaluate("""(width) => [...document.querySelectorAll('button, textarea')]
        .filter(e => e.getClientRects().length)
        .map(e => [e.id || e.textContent.trim().slice(0, 20), e.getBoundingClientRect()])
        .filter(([n, r]) => r.width > 0 && (r.left < 0 || r.right > width + 0.5))
        .map(([n]) => n)""", width)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_control_overlaps_another(page: Any, width: int, artifacts: Path) -> None:
    page.set_viewport_size({"width": width, "height": 720})
    for sidebar in ("open", "closed"):
        is_open = page.locator("#app.sidebar-open").count() == 1
        if is_open != (sidebar == "open"):
            page.click("#toggle-sidebar")
        page.wait_for_timeout(50)
        page.screenshot(path=str(artifacts / f"page-{width}-sidebar-{sidebar}.png"))
        assert overlaps(page) == [], f"{width}px, sidebar {sidebar}"
        assert outside(page, width) == [], f"{width}px, sidebar {sidebar}: off screen"
        assert page.locator("#engine").is_visible()  # checked for overlaps with the rest
        toggle = page.locator("#toggle-sidebar").bounding_box()
        assert toggle["x"] >= 8 and toggle["y"] >= 4  # clear of the window's corner
    page.set_viewport_size({"width": 1280, "height": 800})


def test_engine_selector_starts_a_session_on_another_engine(page: Any, served: Served) -> None:
    options = page.locator("#engine option").all_text_contents()
    assert options == ["aiagent", "other-engine-with-a-long-name"]
    page.select_option("#engine", "other-engine-with-a-long-name")
    page.wait_for_function("() => !document.querySelector('#empty').hidden")
    page.fill("#input", "hello other engine")
    page.press("#input", "Enter")
    page.wait_for_selector(".error-line:has-text('no-such-engine')")  # the engine's error, shown
    current = page.evaluate("() => sessionStorage.getItem('aiagent.session')")
    with served.client() as c:
        assert c.get(f"/api/sessions/{current}").json()["engine"] == "other-engine-with-a-long-name"
    page.select_option("#engine", "aiagent")  # back to our own engine: a new session again
    page.wait_for_function("(old) => sessionStorage.getItem('aiagent.session') !== old", arg=current)
    assert page.locator("#engine").input_value() == "aiagent"
