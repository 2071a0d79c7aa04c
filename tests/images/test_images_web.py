"""Images on the web page: the real ``aiagent serve`` on loopback takes ``images`` with a
message (checked in FakeLLM's recorded request), refuses a bad one with 400 and runs
nothing, keeps the image in the session's history; in headless Chromium the attach
control sends a file with the message, and a pasted image is attached too."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.images.imagefiles import b64, image_bytes, write_image
from tests.web.serving import Served, chromium, served_page, sse_events, start_server

from aiagent.testing import Turn


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from start_server(tmp_path_factory.mktemp("serve"))


def _post(served: Served, sid: str, body: dict[str, Any]) -> tuple[int, list[Any]]:
    with served.client() as c, c.stream("POST", f"/api/sessions/{sid}/messages", json=body) as response:
        if response.status_code != 200:
            response.read()
            return response.status_code, [response.json()]
        return 200, list(sse_events(response.iter_lines()))


def _images(request: dict[str, Any]) -> list[dict[str, Any]]:
    content = request["json"]["messages"][-1]["content"]
    return [b for b in content if b.get("type") == "image"]


def test_api_sends_the_image_and_keeps_it_in_history(served: Served) -> None:
    png = image_bytes()
    served.fake.push(Turn(text="a red square"))
    sid = served.new_session()
    before = len(served.fake.requests)
    status, events = _post(served, sid, {"text": "what is it?", "images": [
        {"name": "red.png", "data": "data:image/png;base64," + b64(png)}]})
    assert status == 200 and events[-1].type == "done" and events[-1].data["exit_code"] == 0
    sent = served.fake.requests[before]
    assert _images(sent) == [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                          "data": b64(png)}}]
    with served.client() as c:
        history = c.get(f"/api/sessions/{sid}").json()["messages"]
    assert history[0]["content"][0] == {"type": "image", "name": "red.png",
                                        "describe": f"image/png 4x3, {len(png)} bytes"}


@pytest.mark.parametrize("image, why", [
    ({"name": "notes.png", "data": base64.b64encode(b"plain text").decode()},
     "notes.png: not a PNG, JPEG, GIF or WebP image; not attached"),
    ({"name": "x.png", "data": "***"}, "x.png: its data is not valid base64; not attached"),
    ({"name": "big.png", "data": base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(4 * 1024 * 1024)).decode()},
     "big.png: 4.0 MB is more than 5.0 MB once encoded; not attached"),
    ("not an object", "'images' must be a list of {name, data} objects"),
])
def test_api_refuses_a_bad_image_and_runs_nothing(served: Served, image: Any, why: str) -> None:
    sid = served.new_session()
    before = len(served.fake.requests)
    status, body = _post(served, sid, {"text": "look", "images": [image]})
    assert status == 400 and body == [{"error": why}]
    assert len(served.fake.requests) == before


@pytest.fixture(scope="module")
def page(served: Served) -> Iterator[Any]:
    with chromium() as browser, served_page(browser, served) as page:
        yield page


def test_page_attach_control_sends_the_file(page: Any, served: Served, tmp_path: Path) -> None:
    png = write_image(tmp_path / "shot.png")
    served.fake.push(Turn(text="I see a red square"))
    page.click("#clear")
    before = len(served.fake.requests)
    page.set_input_files("#image-file", str(tmp_path / "shot.png"))
    page.wait_for_selector("#attachments .chip:text('shot.png')")
    page.fill("#input", "what is this?")
    page.press("#input", "Enter")
    page.locator(".msg.assistant", has_text="I see a red square").wait_for()
    assert [i["source"]["data"] for i in _images(served.fake.requests[before])] == [b64(png)]
    assert page.locator("#attachments").is_hidden()  # sent: nothing left attached
    assert "shot.png" in page.locator(".msg.user").last.inner_text()
    page.reload()
    page.wait_for_selector(".msg.user .chip:text('shot.png (image/png 4x3')")


def test_page_pasted_image_is_attached_and_a_refusal_keeps_the_message(page: Any, served: Served) -> None:
    png = image_bytes()
    page.click("#clear")
    page.evaluate("""(b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], "clip.png", {type: "image/png"}));
        document.getElementById("input").dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true}));
    }""", b64(png))
    page.wait_for_selector("#attachments .chip:text('clip.png')")
    # the page checks only the type; the server checks the bytes: a fake PNG comes back
    page.evaluate("""() => {
        const data = new DataTransfer();
        data.items.add(new File([new TextEncoder().encode("not a picture")], "fake.png", {type: "image/png"}));
        document.getElementById("input").dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true}));
    }""")
    page.wait_for_selector("#attachments .chip:text('fake.png')")
    before = len(served.fake.requests)
    page.fill("#input", "two pictures")
    page.press("#input", "Enter")
    page.wait_for_selector("#status.error:text('fake.png: not a PNG, JPEG, GIF or WebP image')")
    assert len(served.fake.requests) == before
    assert page.input_value("#input") == "two pictures"
    assert page.locator("#attachments .chip").count() == 2  # nothing lost
