"""The files of a skill the model may read: what is listed when it activates, and how one
file is returned.

Listed are the manifest's ``context_files``, everything under ``scripts/``, ``references/``
and ``assets/``, and the other files of the skill its instructions mention (public
collections keep ``forms.md`` or ``reference.md`` beside ``SKILL.md`` and link to them).
A list or a file cut to fit says so. A binary file (a PDF, an image, an archive) is never
returned as text: the model gets a short description with its type, size and full path.
"""

from __future__ import annotations

import codecs
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from aiagent.agent.skills.manifest import Manifest

RESOURCE_DIRS = ("scripts", "references", "assets")
MAX_LISTED = 50
SNIFF_BYTES = 8192
CHARS_PER_TOKEN = 4
#: leading bytes of common binary formats -> what to call them
MAGIC = (
    (b"%PDF-", "PDF document"), (b"\x89PNG\r\n\x1a\n", "PNG image"), (b"GIF8", "GIF image"),
    (b"\xff\xd8\xff", "JPEG image"), (b"PK\x03\x04", "ZIP archive"), (b"\x7fELF", "ELF executable"),
    (b"\x1f\x8b", "gzip archive"), (b"RIFF", "RIFF media file"), (b"SQLite format 3\x00", "SQLite database"),
    (b"\xca\xfe\xba\xbe", "Mach-O or Java class file"), (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
)
OFFICE = {".docx": "Word document", ".xlsx": "Excel workbook", ".pptx": "PowerPoint presentation",
          ".jar": "Java archive"}
# `path`, [text](path) and bare words that look like a file name with an extension
REFERENCE_RE = re.compile(r"`([^`\s]{1,200})`|\]\(\s*<?([^)\s>#]{1,200})|(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8})\b")


@dataclass(frozen=True, slots=True)
class FileList:
    files: list[str]
    omitted: int = 0  # found but not listed (over MAX_LISTED)


def _in_resource_dirs(root: Path) -> list[str]:
    found: list[str] = []
    for sub in RESOURCE_DIRS:
        base = root / sub
        if base.is_dir():
            found += [f.relative_to(root).as_posix() for f in sorted(base.rglob("*"))
                      if f.is_file() and not any(p.startswith(".") for p in f.relative_to(root).parts)]
    return found


def referenced_files(m: Manifest, body: str) -> list[str]:
    """Files of the skill (outside the resource folders too) that ``body`` mentions."""
    root = m.root.resolve()
    found: list[str] = []
    for match in REFERENCE_RE.finditer(body):
        rel = next(g for g in match.groups() if g).strip().removeprefix("./")
        if "://" in rel or rel.startswith(("/", "~")):
            continue
        try:
            target = (root / rel).resolve()
        except (OSError, ValueError):
            continue
        if target.is_relative_to(root) and target.is_file() and target != m.file.resolve():
            found.append(target.relative_to(root).as_posix())
    return list(dict.fromkeys(found))


def skill_files(m: Manifest, body: str = "", limit: int = MAX_LISTED) -> FileList:
    """What the model is told it can read, at most ``limit`` names (and how many more)."""
    context = list(m.prompt.context_files) if m.prompt else []
    every = list(dict.fromkeys([*context, *referenced_files(m, body), *_in_resource_dirs(m.root)]))
    return FileList(every[:limit], max(0, len(every) - limit))


def binary_kind(path: Path, head: bytes, complete: bool) -> str | None:
    """What ``head`` (the first bytes of ``path``; all of it when ``complete``) is, with
    its article, if it is not UTF-8 text; else None."""
    for magic, kind in MAGIC:
        if head.startswith(magic):
            return "a " + (OFFICE.get(path.suffix.lower(), kind) if magic == b"PK\x03\x04" else kind)
    if b"\x00" in head:
        guessed, _ = mimetypes.guess_type(path.name)
        return f"a binary file ({guessed})" if guessed else "a binary file"
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(head, final=complete)
    except UnicodeDecodeError:
        return "a file in another encoding or format"
    return None


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 10_000 else f"{n / 1024:,.0f} KB" if n < 10_000_000 else f"{n / 1048576:,.1f} MB"


def describe_binary(m: Manifest, rel: str, path: Path, kind: str) -> str:
    scripts = [f for f in _in_resource_dirs(m.root) if f.startswith("scripts/")]
    hint = f" This skill's scripts may handle it: {', '.join(scripts[:5])}." if scripts else ""
    return (f"{rel} is {kind} ({_size(path.stat().st_size)}), not UTF-8 text, so it is not shown. "
            f"Its full path is {path}; open it with a program that reads this format.{hint}")


def read_skill_file(m: Manifest, rel: str, known: FileList | None = None) -> str:
    """The text of one file of the skill, cut to the skill's budget (saying so), or a
    description if it is binary. Raises LookupError for a file that is not there."""
    root = m.root.resolve()
    target = (root / rel).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        listing = known or skill_files(m)
        raise LookupError(f"skill {m.name} has no file {rel} (its files: {', '.join(listing.files) or 'none'})")
    try:
        with target.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
            kind = binary_kind(target, head, len(head) < SNIFF_BYTES)
            if kind is not None:
                return describe_binary(m, rel, target, kind)
            tokens = m.prompt.max_context_tokens if m.prompt else 4000
            limit = tokens * CHARS_PER_TOKEN
            data = head + fh.read(limit * 4 + 4 - len(head))  # enough bytes for `limit` characters
    except OSError as exc:
        raise LookupError(f"skill {m.name}: cannot read {rel}: {exc.strerror}") from None
    text = data.decode("utf-8", errors="replace")
    total = target.stat().st_size
    if len(text) <= limit and len(data) >= total:
        return text
    return (text[:limit] + f"\n[… cut: this is the first {limit:,} characters of {rel} ({_size(total)}); "
            f"the skill's budget is {tokens:,} tokens. Read the file by its path for the rest: {target}]")
