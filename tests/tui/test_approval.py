"""The approval panel: single keys for the offered answers; nothing cut at 60 columns."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from aiagent.core.events import ApprovalRequestEvent
from aiagent.ui.tui.approval import STOP, answer_text, approval_panel, key_map, pack


def render(event: ApprovalRequestEvent, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(approval_panel(event, width))
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


def test_keys_for_every_answer() -> None:
    keys = key_map(("once", "session", "project", "always", "deny"))
    assert [keys[k] for k in "yspan"] == ["once", "session", "project", "always", "deny"]
    assert [keys[k] for k in "12345"] == ["once", "session", "project", "always", "deny"]
    assert keys["Y"] == "once" and keys["enter"] == "once"
    assert keys["escape"] == STOP


def test_only_offered_answers_have_keys() -> None:
    keys = key_map(("once", "deny"))
    assert "a" not in keys and "s" not in keys and keys["n"] == "deny"


def test_pack_never_splits_an_item() -> None:
    items = ["[y] yes, once", "[s] this session", "[p] always in this project", "[a] always"]
    for width in (20, 30, 40, 60):
        lines = pack(items, width)
        assert " ".join(lines).split("   ") == items or all(
            any(item in line for line in lines) for item in items)


@pytest.mark.parametrize("width", [60, 80, 40])
def test_shell_panel_fits_and_shows_every_option(width: int) -> None:
    event = ApprovalRequestEvent("a1", "shell_command", "shell_command rm -rf build",
                                 {"command": "rm -rf build && make all"})
    lines = render(event, width)
    assert all(len(line) <= width for line in lines)
    text = "\n".join(lines)
    assert "$ rm -rf build && make all" in text
    for label in ("[y] yes, once", "[s] this session", "[p] always in this project",
                  "[a] always", "[n] no", "[esc] no, and stop"):
        assert label in text


def test_skill_permission_dialog() -> None:
    event = ApprovalRequestEvent(
        "s1", "skill", 'Skill "kubernetes" wants to activate',
        {"skill": "kubernetes", "permissions": [
            {"name": "file:read", "reason": "Read Kubernetes manifests"},
            {"name": "shell:exec", "reason": "Run kubectl commands"}]},
        options=("once", "always", "deny"))
    text = "\n".join(render(event, 60))
    assert 'Skill "kubernetes" wants to activate' in text
    assert "✓ file:read — Read Kubernetes manifests" in text
    assert "[y] allow once" in text and "[a] allow always" in text and "[n] deny" in text


def test_answer_texts() -> None:
    assert answer_text("always")[0].endswith("allowed always")
    assert "stopping" in answer_text(STOP)[0]
