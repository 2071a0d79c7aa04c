"""Image paths pasted (or dropped) into the prompt become attachments.

A terminal drops a file as its path, quoted or with escaped spaces, sometimes as a
``file://`` URI. A paste that is nothing but paths to existing ``.png``/``.jpg``/
``.gif``/``.webp`` files becomes one ``[Image #N: name]`` placeholder per file; in line
mode, image paths at the start of a line do. Only the user's own input is looked at,
never a model's text. A file is attached when it lies, symlinks resolved, in the project
or a folder the tools may read (``[tools] allow_outside_workspace`` lifts that), and
passes the checks every attachment passes (:mod:`aiagent.agent.core.images`). When one
fails, the paste stays plain text and a one-line notice says why.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from aiagent.agent.core.images import SUFFIXES, ImageInputError, load_image
from aiagent.contracts.messages import ImageBlock
from aiagent.frontends.tui import render

if TYPE_CHECKING:
    from aiagent.frontends.tui.app import InteractiveApp

PLACEHOLDER = re.compile(r"\[Image #(\d+): [^\]\n]*\]")
TOKEN = re.compile(r"""\s*('[^']*'|"(?:[^"\\]|\\.)*"|(?:[^\s\\'"]|\\.)+)""")
MAX_PASTE = 4096  # longer pastes are text, not dropped files


def image_paths(text: str, cwd: Path) -> list[Path] | None:
    """The paths a paste names when it is nothing else, each with an image suffix; None
    when the paste is anything else (text, a path to another kind of file)."""
    text = text.strip()
    if not text or len(text) > MAX_PASTE:
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    paths = [_path(word, cwd) for word in words]
    if not paths or any(p is None for p in paths):
        return None
    return [p for p in paths if p is not None]


def leading_image_paths(line: str, cwd: Path) -> tuple[list[Path], str]:
    """Line mode: the image paths a line starts with, and the rest of the line."""
    found: list[Path] = []
    at = 0
    while match := TOKEN.match(line, at):
        try:
            words = shlex.split(match.group(1))
        except ValueError:
            break
        path = _path(words[0], cwd) if len(words) == 1 else None
        if path is None:
            break
        found.append(path)
        at = match.end()
    return found, line[at:].strip() if found else line


def _path(word: str, cwd: Path) -> Path | None:
    if word.startswith("file://"):
        word = unquote(word[len("file://"):])
    path = Path(os.path.expanduser(word))
    path = path if path.is_absolute() else cwd / path
    if path.suffix.lower() not in SUFFIXES or not path.is_file():
        return None
    return path


def refusal(path: Path, roots: Iterable[Path], anywhere: bool = False) -> str:
    """Why ``path`` may not be attached from a paste ("" when it may)."""
    real = Path(os.path.realpath(path))
    if anywhere or any(real == r or real.is_relative_to(r) for r in map(_real, roots)):
        return ""
    via = f" (through a symlink to {real})" if real != Path(os.path.abspath(path)) else ""
    return (f"{path}: outside the project{via}; not attached (copy it into the project, or "
            "set [tools] allow_outside_workspace = true)")


def _real(root: Path) -> Path:
    return Path(os.path.realpath(root))


@dataclass
class PastedImages:
    """The images attached so far in the prompt being written, by placeholder number."""

    roots: list[Path]
    anywhere: bool = False
    images: dict[int, ImageBlock] = field(default_factory=dict)

    def attach(self, paths: list[Path]) -> str:
        """The placeholders for ``paths``; :class:`ImageInputError` when one cannot be
        attached (then none is)."""
        blocks = []
        for path in paths:
            why = refusal(path, self.roots, self.anywhere)
            if why:
                raise ImageInputError(why)
            blocks.append(load_image(path))
        placeholders = []
        for block in blocks:
            number = max(self.images, default=0) + 1
            self.images[number] = block
            placeholders.append(f"[Image #{number}: {block.name}]")
        return " ".join(placeholders)

    def take(self, text: str) -> list[ImageBlock]:
        """The images whose placeholders ``text`` still holds, in order; all are then
        forgotten (the next prompt starts afresh)."""
        wanted = [int(m.group(1)) for m in PLACEHOLDER.finditer(text)]
        taken = [self.images[n] for n in dict.fromkeys(wanted) if n in self.images]
        self.images.clear()
        return taken


def pasted_for(app: InteractiveApp) -> PastedImages:
    """The app's pasted images, with the folders a paste may attach from."""
    from aiagent.agent.tools.shell.runtime import READABLE_ROOTS_KEY

    found: PastedImages = app.pasted_images
    readable = app.agent.tool_state.get(READABLE_ROOTS_KEY, []) if app.agent is not None else []
    found.roots = [app.workspace, *(Path(r) for r in readable)]
    settings = app.settings
    found.anywhere = bool(settings is not None and settings.tools.allow_outside_workspace)
    return found


def paste_hook(app: InteractiveApp) -> Callable[[str], str | None]:
    """What the input line calls with a paste: the placeholders to insert instead, or None
    (the paste goes in as text; a notice says why when it named images)."""

    def paste(text: str) -> str | None:
        paths = image_paths(text, app.workspace)
        if paths is None:
            return None
        try:
            return pasted_for(app).attach(paths)
        except ImageInputError as exc:
            app.say(render.notice(f"✗ {exc}", "red"))
            return None

    return paste


def images_to_send(app: InteractiveApp, text: str, line_mode: bool) -> tuple[str, list[ImageBlock]] | None:
    """The prompt and the images it carries: its placeholders', and in line mode the image
    paths it starts with. None when one cannot be attached (a notice says why)."""
    pasted = pasted_for(app)
    if line_mode:
        paths, rest = leading_image_paths(text, app.workspace)
        if paths:
            try:
                text = f"{pasted.attach(paths)} {rest}".strip()
            except ImageInputError as exc:
                app.say(render.notice(f"✗ {exc}", "red"))
                return None
    images = pasted.take(text)
    for block in images:
        app.say(render.notice(f"  {render.ELBOW}  attached image {block.name} ({block.image.describe()})"))
    return text, images
