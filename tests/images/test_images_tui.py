"""Image paths pasted or dropped in the TUI: the real ``aiagent`` in tmux gets a bracketed
paste of a path and shows ``[Image #1: name]``, and the request carries the image; in line
mode (in-process), image paths at the start of a line are attached. Refused: a path outside
the project, a symlink out of it, a ``.png`` that is text; a path in the middle of a
sentence stays text (nothing attached silently)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from tests.images.imagefiles import b64, write_image
from tests.tui.lineapp import run_app
from tests.tui.tmuxdriver import Tmux, available, llm_env, ui_environment

from aiagent.frontends.tui.images import PastedImages, image_paths, leading_image_paths
from aiagent.testing import FakeLLM, Turn


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**ui_environment(tmp_path / "home"), "AIAGENT_NO_HISTORY": "1"}


def _line_mode(lines: list[str], env: dict[str, str], project: Path,
               monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[dict[str, object]]]:
    with FakeLLM([Turn(text="seen it"), Turn(text="again")]) as fake:
        code, out = run_app(lines, llm_env(env, fake), project, monkeypatch)
        sent = [r["json"] for r in fake.requests]
    assert code == 0, out
    return out, sent


def _images(request: dict[str, object]) -> list[str]:
    content = request["messages"][-1]["content"]  # type: ignore[index]
    return [b["source"]["data"] for b in content if isinstance(b, dict) and b.get("type") == "image"] \
        if isinstance(content, list) else []


def test_line_mode_attaches_leading_image_paths(env: dict[str, str], project: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    png = write_image(project / "my shot.png")
    out, sent = _line_mode(["'my shot.png' what is it?", "/quit"], env, project, monkeypatch)
    assert "attached image my shot.png (image/png 4x3" in out
    assert _images(sent[0]) == [b64(png)]
    text = sent[0]["messages"][-1]["content"][-1]["text"]  # type: ignore[index]
    assert text == "[Image #1: my shot.png] what is it?"


def test_path_inside_a_sentence_is_not_attached(env: dict[str, str], project: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    write_image(project / "red.png")
    out, sent = _line_mode(["describe red.png please", "/quit"], env, project, monkeypatch)
    assert "attached image" not in out and _images(sent[0]) == []


@pytest.mark.parametrize("setup, why", [
    ("outside", "outside the project; not attached"),
    ("symlink", "outside the project (through a symlink to "),
    ("text", "not a PNG, JPEG, GIF or WebP image; not attached"),
])
def test_refused_paste_sends_nothing(env: dict[str, str], project: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch, setup: str, why: str) -> None:
    outside = tmp_path / "elsewhere.png"
    write_image(outside)
    path = {"outside": str(outside), "symlink": "link.png", "text": "notes.png"}[setup]
    if setup == "symlink":
        (project / "link.png").symlink_to(outside)
    (project / "notes.png").write_text("just text\n")
    out, sent = _line_mode([f"{path} what is it?", "hello", "/quit"], env, project, monkeypatch)
    assert why in out
    assert len(sent) == 1 and _images(sent[0]) == []  # the refused line was not sent
    assert sent[0]["messages"][-1]["content"][-1]["text"] == "hello"  # type: ignore[index]


def test_pasted_images_unit(project: Path, tmp_path: Path) -> None:
    write_image(project / "a.png")
    write_image(project / "b c.jpg", "JPEG")
    assert image_paths("a.png", project) == [project / "a.png"]
    assert image_paths(f"'{project}/b c.jpg' file://{project}/a.png", project) == \
        [project / "b c.jpg", project / "a.png"]
    assert image_paths("a.png and some words", project) is None
    assert image_paths("missing.png", project) is None
    assert leading_image_paths("b\\ c.jpg a.png look", project) == \
        ([project / "b c.jpg", project / "a.png"], "look")
    pasted = PastedImages([project])
    assert pasted.attach([project / "a.png", project / "b c.jpg"]) == "[Image #1: a.png] [Image #2: b c.jpg]"
    taken = pasted.take("[Image #2: b c.jpg] only the second")
    assert [b.name for b in taken] == ["b c.jpg"] and pasted.images == {}


def test_tmux_bracketed_paste_becomes_an_attachment(env: dict[str, str], project: Path,
                                                    tmp_path: Path) -> None:
    if not available():
        pytest.skip("tmux is not installed (apt-get install -y tmux) — terminal tests skipped")
    png = write_image(project / "shot.png")
    write_image(tmp_path / "outside.png")
    tmux = Tmux()
    try:
        with FakeLLM([Turn(text="ready"), Turn(text="a red square"), Turn(text="no image here")]) as fake:
            tmux.start([], llm_env(env, fake), project)
            tmux.wait_for("ctrl-c twice quits")
            tmux.type("hi")  # a first turn: the input line (not the first frame) now reads keys
            tmux.send("Enter")
            tmux.wait_for("ready")
            tmux.wait_idle()
            tmux._tmux("set-buffer", "--", f"'{project}/shot.png'")
            tmux._tmux("paste-buffer", "-p", "-t", "main")
            tmux.wait_for("[Image #1: shot.png]")
            tmux.type("what is this?")
            tmux.send("Enter")
            tmux.wait_for("a red square")
            tmux.wait_idle()
            tmux._tmux("set-buffer", "--", str(tmp_path / "outside.png"))
            tmux._tmux("paste-buffer", "-p", "-t", "main")
            tmux.wait_for("outside the project; not attached")
            tmux.send("Enter")
            tmux.wait_for("no image here")
            sent = [r["json"] for r in fake.requests][1:]
    finally:
        tmux.close()
    assert _images(sent[0]) == [b64(png)]
    assert sent[0]["messages"][-1]["content"][-1]["text"] == "[Image #1: shot.png] what is this?"
    assert _images(sent[1]) == []
    assert sent[1]["messages"][-1]["content"][-1]["text"] == str(tmp_path / "outside.png")


def test_resumed_session_shows_the_image(env: dict[str, str], project: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    write_image(project / "red.png")
    _line_mode(["red.png what?", "/quit"], env, project, monkeypatch)
    monkeypatch.setattr("sys.stdin", io.StringIO("/quit\n"))
    with FakeLLM([]) as fake:
        from aiagent.frontends.tui.app import InteractiveApp
        from aiagent.frontends.tui.terminal import TermInfo

        out = io.StringIO()
        app = InteractiveApp({"continue_session": True}, project, llm_env(env, fake),
                             TermInfo(tty=False, color=False, dark=True, width=80), out=out)
        import asyncio

        assert asyncio.run(app.main()) == 0
    assert "red.png (image/png 4x3" in out.getvalue()
