"""File tools: ``read_file`` and ``list_dir`` (Codex CLI formats), ``write_file``,
``edit`` and ``apply_patch`` (atomic writes that keep encoding, line endings and mode).

Writers resolve and check the path once, then read, write and rename through a handle of
the folder reached by a no-follow walk (:func:`aiagent.agent.tools.workspace.open_parent`), so a
folder swapped for a symlink between the check and the write is refused, not followed.
When the front-end writes files itself (an editor over ACP: ``ctx.files`` is a
:class:`~aiagent.contracts.tools.FileWriteAccess`), every check is made the same way and
only the final write is handed over (:mod:`aiagent.agent.tools.delegated`).
"""

from __future__ import annotations

import io
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from aiagent.agent.tools import delegated, patching, textio
from aiagent.agent.tools.base import patch_header_paths
from aiagent.agent.tools.delegated import Planned
from aiagent.agent.tools.images import Images, looks_like_image
from aiagent.agent.tools.tooldef import (
    BuiltinTool,
    boolean,
    in_thread,
    int_arg,
    number,
    schema,
    string,
)
from aiagent.agent.tools.workspace import Parent, display_path, open_parent, resolve_path
from aiagent.contracts.events import FileDiffEvent
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError, ToolResult, file_writer

T = TypeVar("T")

MAX_LINE_LENGTH = 500
TAB_WIDTH = 4
COMMENT_PREFIXES = ("#", "//", "--")
MAX_ENTRY_LENGTH = 500


def cut_utf8(text: str, max_bytes: int) -> str:
    """At most ``max_bytes`` UTF-8 bytes of ``text``, never splitting a character."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", "ignore")


def format_line(raw: bytes) -> str:
    return cut_utf8(raw.decode("utf-8", "replace"), MAX_LINE_LENGTH)


def _split_line(raw: bytes) -> bytes:
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    return raw


# -- read_file ---------------------------------------------------------------------------


def read_slice(path: Path, offset: int, limit: int, text: str | None = None) -> list[str]:
    collected: list[str] = []
    seen = 0
    with _open(path, text) as handle:
        for raw in handle:
            seen += 1
            if seen < offset:
                continue
            collected.append(f"L{seen}: {format_line(_split_line(raw))}")
            if len(collected) == limit:
                break
    if seen < offset:
        raise ToolError("offset exceeds file length")
    return collected


def read_image(path: Path) -> ToolResult | None:
    """A PNG, JPEG, GIF or WebP file as an image for the model (a note when it cannot be
    sent); None for any other file."""

    try:
        with path.open("rb") as handle:
            head = handle.read(16)
        if not looks_like_image(head):
            return None
        images = Images()
        part = images.add_file(path, path.name)
    except OSError as err:
        raise ToolError(f"failed to read file: {_os_error(err)}") from None
    if part is None:
        return ToolResult("\n".join(images.notes))
    return ToolResult(f"{path}: {part.describe()}", images=images.parts)


def _open(path: Path, text: str | None = None) -> Any:
    """The file's lines as bytes: from disk, or from ``text`` (an editor's buffer)."""
    if text is not None:
        return io.BytesIO(text.encode("utf-8", "surrogatepass"))
    try:
        handle = path.open("rb")
        head = handle.read(textio.BINARY_SNIFF_BYTES)
    except OSError as err:
        raise ToolError(f"failed to read file: {_os_error(err)}") from None
    if textio.looks_binary(head):
        handle.close()
        raise ToolError(f"{path} looks like a binary file; read_file only shows text")
    handle.seek(0)
    return handle


def _os_error(err: OSError) -> str:
    if err.errno is None:
        return str(err)
    return f"{err.strerror} (os error {err.errno})"


@dataclass(slots=True)
class LineRecord:
    number: int
    raw: str
    display: str
    indent: int

    @property
    def blank(self) -> bool:
        return not self.raw.strip()

    @property
    def comment(self) -> bool:
        return self.raw.strip().startswith(COMMENT_PREFIXES)


@dataclass(slots=True)
class IndentOptions:
    anchor_line: int | None = None
    max_levels: int = 0
    include_siblings: bool = False
    include_header: bool = True
    max_lines: int | None = None


def _measure_indent(line: str) -> int:
    width = 0
    for char in line:
        if char == " ":
            width += 1
        elif char == "\t":
            width += TAB_WIDTH
        else:
            break
    return width


def _collect_lines(path: Path, text: str | None = None) -> list[LineRecord]:
    records = []
    with _open(path, text) as handle:
        for number, raw in enumerate(handle, start=1):
            body = _split_line(raw)
            text = body.decode("utf-8", "replace")
            records.append(LineRecord(number, text, format_line(body), _measure_indent(text)))
    return records


def _effective_indents(records: list[LineRecord]) -> list[int]:
    out, previous = [], 0
    for record in records:
        if not record.blank:
            previous = record.indent
        out.append(previous)
    return out


def read_block(path: Path, offset: int, limit: int, opts: IndentOptions,
               text: str | None = None) -> list[str]:
    anchor = opts.anchor_line if opts.anchor_line is not None else offset
    if anchor == 0:
        raise ToolError("anchor_line must be a 1-indexed line number")
    guard = opts.max_lines if opts.max_lines is not None else limit
    if guard == 0:
        raise ToolError("max_lines must be greater than zero")
    records = _collect_lines(path, text)
    if not records or anchor > len(records):
        raise ToolError("anchor_line exceeds file length")
    indents = _effective_indents(records)
    index = anchor - 1
    min_indent = 0 if opts.max_levels == 0 else max(0, indents[index] - opts.max_levels * TAB_WIDTH)
    final_limit = min(limit, guard, len(records))
    if final_limit == 1:
        return [f"L{records[index].number}: {records[index].display}"]
    block = _expand(records, indents, index, min_indent, final_limit, opts)
    while block and block[0].blank:
        block.popleft()
    while block and block[-1].blank:
        block.pop()
    return [f"L{r.number}: {r.display}" for r in block]


def _expand(
    records: list[LineRecord],
    indents: list[int],
    anchor: int,
    min_indent: int,
    final_limit: int,
    opts: IndentOptions,
) -> deque[LineRecord]:
    """Grow the block up and down from the anchor, one line each way per step."""
    out: deque[LineRecord] = deque([records[anchor]])
    up, down = anchor - 1, anchor + 1
    up_at_min = down_at_min = 0
    while len(out) < final_limit:
        progressed = 0
        if up >= 0:
            if indents[up] >= min_indent:
                out.appendleft(records[up])
                progressed += 1
                taken, up = up, up - 1
                if indents[taken] == min_indent and not opts.include_siblings:
                    header = opts.include_header and records[taken].comment
                    if header or up_at_min == 0:
                        up_at_min += 1
                    else:
                        out.popleft()
                        progressed -= 1
                        up = -1
                if len(out) >= final_limit:
                    break
            else:
                up = -1
        if down < len(records):
            if indents[down] >= min_indent:
                out.append(records[down])
                progressed += 1
                taken, down = down, down + 1
                if indents[taken] == min_indent and not opts.include_siblings:
                    if down_at_min > 0:
                        out.pop()
                        progressed -= 1
                        down = len(records)
                    down_at_min += 1
            else:
                down = len(records)
        if progressed == 0:
            break
    return out


def _indent_options(raw: Any) -> IndentOptions:
    if raw is None:
        return IndentOptions()
    if not isinstance(raw, dict):
        raise ToolError("indentation must be an object")
    anchor = raw.get("anchor_line")
    max_lines = raw.get("max_lines")
    return IndentOptions(
        anchor_line=None if anchor is None else int_arg(raw, "anchor_line", 0),
        max_levels=int_arg(raw, "max_levels", 0),
        include_siblings=bool(raw.get("include_siblings", False)),
        include_header=bool(raw.get("include_header", True)),
        max_lines=None if max_lines is None else int_arg(raw, "max_lines", 0),
    )


class ReadFileTool(BuiltinTool):
    name = "read_file"
    description = (
        "Reads a local file with 1-indexed line numbers, supporting slice and "
        "indentation-aware block modes."
    )
    effect = ToolEffect.of("read", path_args=("file_path",))
    input_schema = schema(
        {
            "file_path": string("Absolute path to the file"),
            "offset": number("The line number to start reading from. Must be 1 or greater."),
            "limit": number("The maximum number of lines to return."),
            "mode": string(
                'Optional mode selector: "slice" for simple ranges (default) or "indentation" '
                "to expand around an anchor line."
            ),
            "indentation": schema(
                {
                    "anchor_line": number(
                        "Anchor line to center the indentation lookup on (defaults to offset)."
                    ),
                    "max_levels": number(
                        "How many parent indentation levels (smaller indents) to include."
                    ),
                    "include_siblings": boolean(
                        "When true, include additional blocks that share the anchor indentation."
                    ),
                    "include_header": boolean(
                        "Include doc comments or attributes directly above the selected block."
                    ),
                    "max_lines": number(
                        "Hard cap on the number of lines returned when using indentation mode."
                    ),
                }
            ),
        },
        ["file_path"],
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str | ToolResult:
        offset = int_arg(args, "offset", 1)
        limit = int_arg(args, "limit", 2000)
        if offset <= 0:
            raise ToolError("offset must be a 1-indexed line number")
        if limit <= 0:
            raise ToolError("limit must be greater than zero")
        mode = args.get("mode") or "slice"
        if mode not in ("slice", "indentation"):
            raise ToolError(f"unknown mode {mode!r}: use \"slice\" or \"indentation\"")
        path = resolve_path(ctx, args["file_path"], field="file_path", reading=True)
        text = await ctx.files.read_text(path) if ctx.files is not None else None
        image = await in_thread(read_image, path) if text is None else None
        if image is not None:
            textio.remember_read(ctx, path)
            return image
        if mode == "slice":
            lines = await in_thread(read_slice, path, offset, limit, text)
        else:
            opts = _indent_options(args.get("indentation"))
            lines = await in_thread(read_block, path, offset, limit, opts, text)
        if text is None:
            textio.remember_read(ctx, path)
        else:  # the editor's buffer: edits start from it too (:func:`buffers`)
            textio.remember_text(ctx, path, text)
        return "\n".join(lines)


# -- list_dir ----------------------------------------------------------------------------


@dataclass(slots=True)
class DirEntry:
    sort_key: str
    display: str
    depth: int
    kind: str  # "dir" | "file" | "symlink" | "other"


_SUFFIX = {"dir": "/", "symlink": "@", "other": "?", "file": ""}


def _kind(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return "symlink"
    if entry.is_dir(follow_symlinks=False):
        return "dir"
    if entry.is_file(follow_symlinks=False):
        return "file"
    return "other"


def collect_entries(root: Path, depth: int) -> list[DirEntry]:
    entries: list[DirEntry] = []
    queue: deque[tuple[Path, str, int]] = deque([(root, "", depth)])
    while queue:
        current, prefix, remaining = queue.popleft()
        try:
            with os.scandir(current) as it:
                found = [(e, _kind(e)) for e in it]
        except OSError as err:
            raise ToolError(f"failed to read directory: {_os_error(err)}") from None
        level = []
        for entry, kind in found:
            rel = f"{prefix}/{entry.name}" if prefix else entry.name
            depth_shown = prefix.count("/") + 1 if prefix else 0
            record = DirEntry(cut_utf8(rel, MAX_ENTRY_LENGTH), cut_utf8(entry.name, MAX_ENTRY_LENGTH), depth_shown, kind)
            level.append((entry.path, rel, record))
        level.sort(key=lambda item: item[2].sort_key)
        for path, rel, record in level:
            if record.kind == "dir" and remaining > 1:
                queue.append((Path(path), rel, remaining - 1))
            entries.append(record)
    return entries


def list_dir_slice(root: Path, offset: int, limit: int, depth: int) -> list[str]:
    entries = collect_entries(root, depth)
    if not entries:
        return []
    entries.sort(key=lambda e: e.sort_key)
    start = offset - 1
    if start >= len(entries):
        raise ToolError("offset exceeds directory entry count")
    end = start + min(limit, len(entries) - start)
    lines = [" " * (e.depth * 2) + e.display + _SUFFIX[e.kind] for e in entries[start:end]]
    if end < len(entries):
        lines.append(f"More than {end - start} entries found")
    return lines


class ListDirTool(BuiltinTool):
    name = "list_dir"
    description = (
        "Lists entries in a local directory with 1-indexed entry numbers and simple type labels."
    )
    effect = ToolEffect.of("read", path_args=("dir_path",))
    input_schema = schema(
        {
            "dir_path": string("Absolute path to the directory to list."),
            "offset": number("The entry number to start listing from. Must be 1 or greater."),
            "limit": number("The maximum number of entries to return."),
            "depth": number("The maximum directory depth to traverse. Must be 1 or greater."),
        },
        ["dir_path"],
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        offset = int_arg(args, "offset", 1)
        limit = int_arg(args, "limit", 25)
        depth = int_arg(args, "depth", 2)
        if offset <= 0:
            raise ToolError("offset must be a 1-indexed entry number")
        if limit <= 0:
            raise ToolError("limit must be greater than zero")
        if depth <= 0:
            raise ToolError("depth must be greater than zero")
        path = resolve_path(ctx, args["dir_path"], field="dir_path")
        lines = await in_thread(list_dir_slice, path, offset, limit, depth)
        return "\n".join([f"Absolute path: {path}", *lines])


# -- writing -----------------------------------------------------------------------------


def _emit_diff(ctx: ToolContext, shown: str, old: str, new: str) -> None:
    diff = textio.unified_diff(old, new, shown)
    if diff:
        ctx.emit(FileDiffEvent(id=ctx.call_id, path=shown, diff=diff))


def save(ctx: ToolContext, parent: Parent, current: textio.TextFile | None, new_text: str,
         defer: list[Planned] | None = None) -> None:
    """Write ``new_text`` keeping the old file's encoding, line endings and mode; with
    ``defer``, only note it there (the front-end writes it: :mod:`aiagent.agent.tools.delegated`)."""
    if defer is not None:
        defer.append(Planned(parent.path, current, new_text))
        return
    shape = current or textio.TextFile(path=parent.path, text="")
    data = shape.encode(new_text)
    textio.write_at(parent, data, shape.mode)
    textio.remember_written(ctx, parent.path, data)
    _emit_diff(ctx, display_path(ctx, parent.path), current.text if current else "", new_text)


async def buffers(ctx: ToolContext, paths: list[Path]) -> dict[Path, str]:
    """The editor's text of each existing file of ``paths`` (its unsaved buffer), when the
    front-end shares it (``ctx.files``): an edit starts from what the user and the model
    see, and handing the result to the editor keeps the user's unsaved changes."""
    out: dict[Path, str] = {}
    if ctx.files is None:
        return out
    for path in paths:
        if await in_thread(path.is_file):
            text = await ctx.files.read_text(path)
            if text is not None:
                out[path] = text
    return out


async def _change_one(ctx: ToolContext, path: Path, work: Callable[..., T], *args: Any) -> T:
    """``work(ctx, path, *args, defer, buffer)`` in a thread, from the editor's text of the
    file when the front-end shares it; the new text is handed to the front-end's writer
    when it has one (:mod:`aiagent.agent.tools.delegated`), else ``work`` wrote the disk."""
    writer = file_writer(ctx)
    defer: list[Planned] | None = [] if writer is not None else None
    buffer = (await buffers(ctx, [path])).get(path)
    out = await in_thread(work, ctx, path, *args, defer, buffer)
    if writer is not None and defer:
        await delegated.save_all(ctx, writer, defer, [])
    return out


def _write_whole(ctx: ToolContext, path: Path, shown: str, content: str,
                 defer: list[Planned] | None = None, buffer: str | None = None) -> bool:
    """write_file's work; True when the file existed before."""
    with textio.os_errors(path), open_parent(ctx, path, create=True) as parent:
        current = textio.with_buffer(textio.read_at(parent), buffer)
        if current is not None:
            textio.check_not_stale(ctx, path, shown, current)
        save(ctx, parent, current, content, defer)
    return current is not None


def _edit(ctx: ToolContext, path: Path, shown: str, args: dict[str, Any],
          defer: list[Planned] | None = None, buffer: str | None = None) -> int:
    """edit's work; the number of replacements."""
    with textio.os_errors(path), open_parent(ctx, path) as parent:
        current = textio.with_buffer(textio.read_at(parent), buffer)
        if current is None:
            raise ToolError(f"file not found: {path}")
        textio.check_not_stale(ctx, path, shown, current)
        old = args["old_string"].replace("\r\n", "\n") if current.crlf else args["old_string"]
        new = args["new_string"].replace("\r\n", "\n") if current.crlf else args["new_string"]
        text, count = replace_text(current.text, old, new, bool(args.get("replace_all")), shown)
        save(ctx, parent, current, text, defer)
    return count


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


class WriteFileTool(BuiltinTool):
    name = "write_file"
    description = (
        "Creates a file or replaces its whole content. Parent directories are created. "
        "An existing file keeps its encoding, line endings and permissions. Prefer `edit` "
        "or `apply_patch` to change part of an existing file."
    )
    input_schema = schema(
        {
            "file_path": string("Path of the file to write (absolute, or relative to the workspace)."),
            "content": string("The complete new content of the file."),
        },
        ["file_path", "content"],
    )
    effect = ToolEffect.of("write", path_args=("file_path",))

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path = resolve_path(ctx, args["file_path"], field="file_path")
        shown = display_path(ctx, path)
        content = args["content"]
        existed = await _change_one(ctx, path, _write_whole, shown, content)
        verb = "Updated" if existed else "Created"
        return f"{verb} {shown} ({_line_count(content)} lines)"


def replace_text(text: str, old: str, new: str, replace_all: bool, shown: str) -> tuple[str, int]:
    if old == "":
        raise ToolError("old_string must not be empty")
    if old == new:
        raise ToolError("old_string and new_string are identical; nothing to change")
    count = text.count(old)
    if count == 0:
        raise ToolError(f"old_string not found in {shown}; it must match the file exactly (whitespace included)")
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {shown}; include more surrounding lines to make "
            "it unique, or set replace_all to true"
        )
    return text.replace(old, new), count


class EditTool(BuiltinTool):
    name = "edit"
    description = (
        "Replaces exact text in a file. `old_string` must match the file exactly (including "
        "indentation) and occur exactly once, unless `replace_all` is true. Read the file "
        "first; an edit is refused if the file changed on disk since you last read it."
    )
    input_schema = schema(
        {
            "file_path": string("Path of the file to edit (absolute, or relative to the workspace)."),
            "old_string": string("The exact text to replace."),
            "new_string": string("The text to put in its place."),
            "replace_all": boolean("Replace every occurrence instead of exactly one. Defaults to false."),
        },
        ["file_path", "old_string", "new_string"],
    )
    effect = ToolEffect.of("write", path_args=("file_path",))

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path = resolve_path(ctx, args["file_path"], field="file_path")
        shown = display_path(ctx, path)
        count = await _change_one(ctx, path, _edit, shown, args)
        noun = "occurrence" if count == 1 else "occurrences"
        return f"Edited {shown}: replaced {count} {noun}."


class ApplyPatchTool(BuiltinTool):
    name = "apply_patch"
    description = (
        "Applies a patch that adds, deletes, moves or edits files. `input` is the whole patch:\n"
        "*** Begin Patch\n"
        "*** Add File: <path>        (then every line of the new file, each prefixed with +)\n"
        "*** Delete File: <path>\n"
        "*** Update File: <path>\n"
        "*** Move to: <new path>     (optional, directly after Update File)\n"
        "@@ <a line near the change, e.g. the enclosing def or class>   (optional)\n"
        " unchanged line (leading space)\n-removed line\n+added line\n"
        "*** End Patch\n"
        "Give about three unchanged lines around each change so it can be located; use "
        "several @@ sections for several changes in one file. Paths are relative to the "
        "workspace (never absolute). Files changed on disk since you read them are refused."
    )
    input_schema = schema(
        {"input": string("The entire contents of the apply_patch command")}, ["input"]
    )
    effect = ToolEffect.of("write", patch_args=("input",), patch_reader=patch_header_paths)

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:

        writer = file_writer(ctx)
        held = {} if ctx.files is None else await buffers(
            ctx, await in_thread(patching.patch_targets, ctx, args["input"]))
        if writer is None:
            return await in_thread(patching.apply_patch_text, ctx, args["input"], held)
        changes = await in_thread(patching.plan_patch, ctx, args["input"], held)
        plans = [Planned(c.dest or c.path, c.current, c.new_text)
                 for c in changes if c.new_text is not None]
        removals = [c.path for c in changes
                    if c.new_text is None or (c.dest is not None and c.dest != c.path)]
        await delegated.save_all(ctx, writer, plans, removals)
        return patching.summary(changes)
