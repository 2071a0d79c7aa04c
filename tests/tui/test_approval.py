"""The approval panel: single keys for the offered answers; nothing cut at 60 columns."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from aiagent.contracts.events import ApprovalRequestEvent
from aiagent.contracts.tools import ToolEffect
from aiagent.frontends.tui.approval import STOP, answer_text, approval_panel, key_map, pack


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
                                 {"command": "rm -rf build && make all"},
                                 effect=ToolEffect.of("execute", command_args=("command",)))
    lines = render(event, width)
    assert all(len(line) <= width for line in lines)
    text = "\n".join(lines)
    assert "$ rm -rf build && make all" in text
    for label in ("[y] yes, once", "[s] this session", "[p] always in this project",
                  "[a] always", "[n] no", "[esc] no, and stop"):
        assert label in text


def test_skill_permission_dialog() -> None:
    from aiagent.agent.skills.approvals import skill_request

    event = skill_request("kubernetes", ["file:read", "shell:exec", "net:fetch"])
    assert event.tool == "skill:kubernetes" and event.options == ("once", "always", "deny")
    lines = render(event, 60)
    text = "\n".join(lines)
    assert all(len(line) <= 60 for line in lines)
    assert 'Skill "kubernetes" wants to activate' in text and "Required permissions:" in text
    assert "│   ✓ file:read  — Read files within the project [low" in text
    row = next(i for i, line in enumerate(lines) if "file:read" in line)
    assert lines[row + 1].index("risk]") == lines[row].index("—")  # wraps in its column
    assert "✓ shell:exec — Run commands [high risk]" in text
    assert "[y] allow once" in text and "[a] allow always" in text and "[n] deny" in text
    assert "[s]" not in text and "[p]" not in text
    keys = key_map(event.options)
    assert (keys["y"], keys["a"], keys["n"]) == ("once", "always", "deny")


def test_skill_permissions_with_reasons() -> None:
    event = ApprovalRequestEvent(
        "s1", "skill:kubernetes", "kubernetes wants permissions",
        {"skill": "kubernetes", "permissions": [
            {"name": "file:read", "reason": "Read Kubernetes manifests"}]},
        options=("once", "always", "deny"))
    assert "✓ file:read — Read Kubernetes manifests" in "\n".join(render(event, 60))


def test_answer_texts() -> None:
    assert answer_text("always")[0].endswith("allowed always")
    assert "stopping" in answer_text(STOP)[0]


def test_the_panel_reads_the_declared_effect_not_the_name() -> None:
    writes = ToolEffect.of("write", path_args=("target",))
    event = ApprovalRequestEvent("a2", "frobnicate", "frobnicate", {"target": ".git/config"},
                                 effect=writes)
    assert "Apply this change? (frobnicate)" in "\n".join(render(event, 60))
    named_shell = ApprovalRequestEvent("a3", "shell", "shell", {"command": "ls"})  # declares nothing
    assert "Allow shell?" in "\n".join(render(named_shell, 60))
