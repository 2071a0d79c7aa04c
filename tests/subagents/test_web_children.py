"""The web page in a real headless Chromium (the fixtures of tests/web/test_browser.py):
a ``task`` child's tool calls are labelled lines inside the ``task`` call's block, and its
approval card says which child asks."""

from __future__ import annotations

from typing import Any

from tests.web.serving import Served
from tests.web.test_browser import artifacts, browser, page, served  # noqa: F401 - fixtures

from aiagent.testing import ToolCall, Turn


def test_a_child_s_steps_and_approval_are_labelled_in_the_task_block(page: Any, served: Served) -> None:  # noqa: F811
    delegate = ToolCall("task", {"description": "Check the notes", "prompt": "Run echo in the notes"})
    served.fake.push(
        Turn(text="Delegating.", tool_calls=[delegate]),  # the parent
        Turn(text="Running it.", tool_calls=[ToolCall("shell_command", {"command": "echo from-child-42"})]),
        Turn(text="The child is done."),  # the child's answer
        Turn(text="Parent finished."),
    )
    page.fill("#input", "delegate it")
    page.press("#input", "Enter")
    card = page.locator(".approval").last
    card.wait_for()
    assert card.locator("strong").inner_text() == "[general#1] Run this command?"
    card.get_by_role("button", name="Allow once").click()
    page.locator(".msg.assistant", has_text="Parent finished.").wait_for()
    task_block = page.locator("details.tool", has=page.locator("summary", has_text="task"))
    lines = task_block.locator(".subagent-line").all_text_contents()  # folded once done
    assert any(line.startswith("[general#1] → shell_command") and "from-child-42" in line
               for line in lines), lines
    assert any(line.startswith("[general#1] ← shell_command") and "from-child-42" in line for line in lines), lines
    assert any(line.startswith("[general#1] done: completed") for line in lines), lines
    assert "The child is done." in task_block.locator(".result").text_content()
    assert served.fake.remaining == 0
