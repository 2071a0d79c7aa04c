"""The first screen, drawn before anything heavy is imported.

``aiagent`` in a terminal spends most of its start-up importing the line editor
(prompt_toolkit) and the event loop. The banner, the input rule, the prompt mark and
the status and hint lines need none of that, so :func:`paint` writes them at once with
plain escape sequences, using only the standard library. Until the line editor takes
over (:meth:`FirstFrame.handoff`), the terminal does not echo: keys typed meanwhile wait
in the terminal's input queue and reach the editor in order, so nothing is lost or drawn
over the frame. The editor then redraws the same lines in place.

The banner is also used when no frame is painted (``--resume``, plain line mode); its
parts wrap between parts, never inside one, so it fits any width.
"""

from __future__ import annotations

import contextlib
import os
import sys
import unicodedata
from collections.abc import Sequence
from typing import Any, TextIO

SEP = " · "
STARTING = "starting…"  # the status line until the agent is built
INDENT = "  "
MENU_ROWS = 6  # the rows the input line keeps free for the completion menu
TOOLBAR_ROWS = 2  # status and hints
BOLD, DIM, GREY, PROMPT, OFF = "\x1b[1m", "\x1b[2m", "\x1b[90m", "\x1b[1;36m", "\x1b[0m"


def cell_len(text: str) -> int:
    """Terminal cells ``text`` takes: East Asian wide and full-width characters count
    two, combining marks and joiners none (enough for a banner and a status line)."""
    if text.isascii():
        return len(text)
    cells = 0
    for char in text:
        if unicodedata.combining(char) or char in "\u200d\ufe0e\ufe0f":
            continue
        cells += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return cells


def cut_left(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, keeping its end: ``…/deep/folder``."""
    if cell_len(text) <= width:
        return text
    kept = ""
    for char in reversed(text):
        if cell_len(char + kept) > width - 1:
            break
        kept = char + kept
    slash = kept.find(os.sep)
    return "…" + (kept[slash:] if slash > 0 else kept)  # at a folder boundary if it can


def cut_right(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, ending in "…" when cut."""
    if cell_len(text) <= width:
        return text
    kept = ""
    for char in text:
        if cell_len(kept + char) > width - 1:
            break
        kept += char
    return kept + "…" if width > 0 else ""


def pack(parts: Sequence[str], width: int, first: str = "", indent: str = INDENT) -> list[str]:
    """``parts`` joined by `` · `` on as few lines as fit ``width``, the first line led by
    ``first`` and the others by ``indent``. A part is never split: one too long for a
    line is cut from the left, as a path would be."""
    lines: list[str] = []
    current = ""
    for part in parts:
        lead = indent if lines else first
        if current and cell_len(f"{current}{SEP}{part}") <= width:
            current = f"{current}{SEP}{part}"
            continue
        if current:
            lines.append(current)
            lead = indent
        current = lead + cut_left(part, width - cell_len(lead))
    if current:
        lines.append(current)
    return lines


def where(cwd: str, home: str) -> str:
    return "~" + cwd[len(home):] if home and (cwd == home or cwd.startswith(home + os.sep)) else cwd


def banner_lines(version: str, folder: str, width: int, tty: bool) -> list[str]:
    """The two-part banner (name and folder; help and keys), wrapped to ``width``."""
    keys = ["esc stops a turn", "ctrl-c twice quits"] if tty else ["ctrl-d quits"]
    width = max(10, width)
    return pack([f"✻ aiagent {version}", folder], width) + \
        pack(["/help for help", *keys], width, first=INDENT)


def styled_banner(lines: list[str], color: bool) -> str:
    """The banner with the name in bold and the rest dimmed."""
    if not color:
        return "".join(line + "\n" for line in lines)
    out = []
    for index, line in enumerate(lines):
        if index == 0 and line.startswith("✻"):
            name, sep, rest = line.partition(SEP)
            out.append(f"{BOLD}{name}{OFF}{DIM}{sep}{rest}{OFF}\n")
        else:
            out.append(f"{DIM}{line}{OFF}\n")
    return "".join(out)


HINTS = ("⏎ send", "/ commands", "@ files", "! shell", "⌥⏎ newline", "⇧⇥ mode", "^C^C quit")


def hint_line(width: int, notice: str = "") -> str:
    """The keys under the status line (the last ones dropped first), or a notice."""
    if notice:
        return cut_right(notice, width)
    for count in range(len(HINTS), 0, -1):
        line = "  ".join(HINTS[:count])
        if cell_len(line) <= width:
            return line
    return ""


class FirstFrame:
    """A painted frame: the terminal mode to give back, and where the editor starts."""

    def __init__(self, out: TextIO, fd: int, saved: list[Any] | None) -> None:
        self.out, self.fd, self.saved = out, fd, saved
        self.done = False

    def release(self) -> None:
        """Give the terminal its own mode back (once; safe on every exit path)."""
        if self.saved is not None and not self.done:
            import termios

            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.fd, termios.TCSANOW, self.saved)
        self.done = True

    def handoff(self) -> None:
        """Just before the line editor draws: the cursor goes back to the rule's start
        (the editor draws from there, over the same lines) and echo comes back."""
        if not self.done:
            self.out.write("\r\x1b[1A")
            self.out.flush()
        self.release()


def _quiet(fd: int) -> list[Any] | None:
    """Stop echo, line buffering and CR→NL (signals stay on), as the line editor will;
    returns the mode to restore. TCSANOW: keys already typed stay in the queue."""
    import termios

    try:
        saved = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[0] &= ~termios.ICRNL  # Enter stays "\r" (the editor reads "\n" as Ctrl-J)
        mode[3] &= ~(termios.ECHO | termios.ICANON)
        termios.tcsetattr(fd, termios.TCSANOW, mode)
    except (termios.error, OSError):
        return None
    return saved


def frame_text(banner: list[str], status: str, hints: str, columns: int, rows: int,
               color: bool) -> str:
    """Banner, rule, prompt mark, and the status and hint lines on the last two rows,
    as the line editor lays them out; the cursor ends after the prompt mark."""
    grey, prompt, off = (GREY, PROMPT, OFF) if color else ("", "", "")
    below = min(MENU_ROWS - 1 + TOOLBAR_ROWS, max(0, rows - 2))
    rule = "─" * max(1, columns - 1)
    room = "\n" * below + (f"\x1b[{below}A" if below else "")  # scrolls when at the bottom
    return (styled_banner(banner, color) + f"{grey}{rule}{off}\n" + room +
            f"{prompt}›{off} \x1b7" +
            f"\x1b[{rows - 1};1H\x1b[K{grey}{status}{off}" +
            f"\x1b[{rows};1H\x1b[K{grey}{hints}{off}\x1b8")


def paint(version: str, cwd: str, env: dict[str, str], color: bool,
          out: TextIO | None = None) -> FirstFrame:
    """Write the first frame to a terminal and hold its echo until :meth:`handoff`."""
    out = out or sys.stdout
    size = os.get_terminal_size(out.fileno())
    columns, rows = max(20, size.columns), max(4, size.lines)
    width = max(10, columns - 1)
    fd = sys.stdin.fileno()
    saved = _quiet(fd)
    banner = banner_lines(version, where(cwd, env.get("HOME", "")), columns, tty=True)
    out.write(frame_text(banner, cut_right(STARTING, width), hint_line(width), columns, rows,
                         color))
    out.flush()
    return FirstFrame(out, fd, saved)
