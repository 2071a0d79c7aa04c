"""The language-server tools (definition, references, hover, diagnostics, workspace symbols)
and the diagnostics appended to the result of an edit.

Positions are 1-based lines and columns; instead of a column the model may name the
``symbol`` on that line. Results are ``path:line:column: source line`` so the model can read
on from them with ``read_file``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from aiagent.agent.tools.ast import search
from aiagent.agent.tools.lsp.client import Diagnostic, LanguageServer, LspProblem, path_of
from aiagent.agent.tools.lsp.manager import language_of, manager, server_table
from aiagent.agent.tools.tooldef import (
    BuiltinTool,
    in_thread,
    int_arg,
    schema,
    string,
    tool_settings,
)
from aiagent.agent.tools.workspace import display_path, resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError, ToolResult

MAX_LOCATIONS = 100
MAX_HOVER = 4000

POSITION = {
    "file_path": string("The file (absolute, or relative to the workspace)."),
    "line": {"type": "integer", "minimum": 1, "description": "1-based line."},
    "column": {"type": "integer", "minimum": 1, "description": "1-based column of the name."},
    "symbol": string("The name on that line (instead of `column`)."),
}


def lsp_settings(ctx: ToolContext) -> dict[str, Any]:
    return tool_settings(ctx, "lsp")


async def server(ctx: ToolContext, path: Path) -> LanguageServer:
    settings = lsp_settings(ctx)
    if settings.get("enabled") is False:
        raise ToolError("language servers are turned off ([tools.lsp] enabled = false)")
    try:
        return await manager(ctx.state, ctx.workspace, settings).server_for(path)
    except LspProblem as exc:
        raise ToolError(str(exc)) from None


def position(path: Path, args: dict[str, Any]) -> dict[str, int]:
    """The LSP position (0-based line, UTF-16 character) of the arguments."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    line = int_arg(args, "line", 1)
    if line > len(lines):
        raise ToolError(f"line {line} is past the end of the file ({len(lines)} lines)")
    text = lines[line - 1]
    symbol = args.get("symbol")
    if symbol:
        index = text.find(symbol)
        if index < 0:
            raise ToolError(f"{symbol!r} is not on line {line}: {text.strip()[:120]}")
    else:
        index = int_arg(args, "column", 1) - 1
        if index > len(text):
            raise ToolError(f"column {index + 1} is past the end of line {line}")
    return {"line": line - 1, "character": len(text[:index].encode("utf-16-le")) // 2}


def source_line(path: Path, line: int) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle):
                if number == line:
                    return text.strip()[:200]
    except OSError:
        pass
    return ""


def render_locations(ctx: ToolContext, result: Any) -> str:
    items = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
    out = []
    for item in items[:MAX_LOCATIONS]:
        if not isinstance(item, dict):
            continue
        uri = item.get("uri") or item.get("targetUri")
        rng = item.get("range") or item.get("targetSelectionRange") or {}
        start = rng.get("start") if isinstance(rng, dict) else None
        path = path_of(uri) if isinstance(uri, str) else None
        if path is None or not isinstance(start, dict) or not isinstance(start.get("line"), int):
            continue
        line, column = start["line"], start.get("character", 0)
        out.append(f"{display_path(ctx, path)}:{line + 1}:{int(column) + 1}: {source_line(path, line)}")
    if len(items) > MAX_LOCATIONS:
        out.append(f"... {len(items) - MAX_LOCATIONS} more")
    return "\n".join(out) or "no results"


class _PositionTool(BuiltinTool):
    method = ""
    extra: dict[str, Any] = {}
    effect = ToolEffect.of("read", path_args=("file_path",))
    input_schema = schema(POSITION, ["file_path", "line"])

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path = resolve_path(ctx, args["file_path"], field="file_path")
        if not path.is_file():
            raise ToolError(f"no such file: {args['file_path']}")
        where = position(path, args)
        found = await server(ctx, path)
        try:
            result = await found.request(self.method, path, {"position": where, **self.extra})
        except LspProblem as exc:
            raise ToolError(str(exc)) from None
        return self.render(ctx, result)

    def render(self, ctx: ToolContext, result: Any) -> str:
        return render_locations(ctx, result)


class LspDefinitionTool(_PositionTool):
    name = "lsp_definition"
    description = "Where the name at a position is defined (language server)."
    method = "textDocument/definition"


class LspReferencesTool(_PositionTool):
    name = "lsp_references"
    description = "Every reference to the name at a position, its definition included (language server)."
    method = "textDocument/references"
    extra = {"context": {"includeDeclaration": True}}


class LspHoverTool(_PositionTool):
    name = "lsp_hover"
    description = "The type, signature and documentation of the name at a position (language server)."
    method = "textDocument/hover"

    def render(self, ctx: ToolContext, result: Any) -> str:
        contents = result.get("contents") if isinstance(result, dict) else None
        text = _hover_text(contents).strip()
        return text[:MAX_HOVER] or "no information"


def _hover_text(contents: Any) -> str:
    if isinstance(contents, str):
        return contents
    if isinstance(contents, dict):
        return str(contents.get("value", ""))
    if isinstance(contents, list):
        return "\n\n".join(_hover_text(c) for c in contents[:20])
    return ""


class LspDiagnosticsTool(BuiltinTool):
    name = "lsp_diagnostics"
    description = "Errors and warnings the language server reports for a file, errors first."
    effect = ToolEffect.of("read", path_args=("file_path",))
    input_schema = schema({"file_path": POSITION["file_path"]}, ["file_path"])

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path = resolve_path(ctx, args["file_path"], field="file_path")
        if not path.is_file():
            raise ToolError(f"no such file: {args['file_path']}")
        found = await server(ctx, path)
        wait = max(float(lsp_settings(ctx).get("diagnostics_wait", 2)), 1.0)
        try:
            diagnostics = await found.diagnostics_for(path, wait)
        except LspProblem as exc:
            raise ToolError(str(exc)) from None
        return render_diagnostics(diagnostics, 50, all_levels=True) or "no problems reported"


class LspSymbolsTool(BuiltinTool):
    name = "lsp_symbols"
    description = ("Search the workspace's symbols (classes, functions, ...) by name through the "
                   "language server of `language` (default python).")
    effect = ToolEffect.of("read")
    input_schema = schema({"query": string("Part of a symbol's name."),
                           "language": string("python, typescript, go, rust, ...")}, ["query"])

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:

        language = args.get("language") or "python"
        if language not in server_table():
            raise ToolError(f"unknown language {language!r}; one of: {', '.join(sorted(server_table()))}")
        probe = ctx.workspace / f"probe.{_EXTENSIONS.get(language, language)}"
        found = await server(ctx, probe)
        if not found.capabilities.get("workspaceSymbolProvider"):
            return await _symbols_from_syntax(ctx, language, str(args["query"]), found.argv[0])
        try:
            result = await found.workspace_symbols(str(args["query"]))
        except LspProblem as exc:
            raise ToolError(str(exc)) from None
        items = result if isinstance(result, list) else []
        lines = []
        for item in items[:MAX_LOCATIONS]:
            if isinstance(item, dict) and isinstance(item.get("location"), dict):
                where = render_locations(ctx, item["location"])
                lines.append(f"{str(item.get('name', ''))[:100]}  {where}")
        return "\n".join(lines) or "no symbols found"


async def _symbols_from_syntax(ctx: ToolContext, language: str, query: str, server_name: str) -> str:
    """Workspace symbols from the tree-sitter definitions, for servers without
    ``workspace/symbol`` (pylsp)."""

    pattern = f"*{query}*" if query else "*"
    lines = []
    for kind in ("class", "function"):
        found, _ = await in_thread(lambda k=kind: search(
            ctx.workspace, find=k, name=pattern, query=None, language=language, limit=MAX_LOCATIONS))
        lines += [f"{m.name}  {display_path(ctx, m.path)}:{m.line}: {m.text}" for m in found]
    head = f"({Path(server_name).name} has no workspace symbol search; from the syntax trees)"
    return "\n".join([head, *lines[:MAX_LOCATIONS]]) if lines else "no symbols found"


_EXTENSIONS = {"python": "py", "javascript": "js", "typescript": "ts", "tsx": "tsx", "go": "go",
               "rust": "rs", "swift": "swift", "java": "java", "ruby": "rb", "php": "php",
               "csharp": "cs", "kotlin": "kt"}


def render_diagnostics(diagnostics: list[Diagnostic], cap: int, *, all_levels: bool = False) -> str:
    rank = {"error": 0, "warning": 1, "info": 2, "hint": 3}
    kept = [d for d in diagnostics if all_levels or d.severity in ("error", "warning")]
    kept.sort(key=lambda d: (rank.get(d.severity, 4), d.line, d.column))
    lines = [d.render() for d in kept[:cap]]
    if len(kept) > cap:
        lines.append(f"... {len(kept) - cap} more")
    return "\n".join(lines)


async def diagnose_written(ctx: ToolContext, paths: list[str], result: ToolResult) -> ToolResult:
    """After an edit: append the edited files' errors and warnings to ``result``.

    Only when ``[tools.lsp]`` is on and a server for the file's language is installed; a
    missing, slow or broken server adds nothing (the edit itself succeeded)."""
    settings = lsp_settings(ctx)
    if not settings.get("enabled") or not settings.get("diagnostics_after_edit"):
        return result
    wait = float(settings.get("diagnostics_wait", 2))
    cap = int(settings.get("max_diagnostics", 20))
    lsp = manager(ctx.state, ctx.workspace, settings)
    notes = []
    for raw in dict.fromkeys(paths):
        try:
            path = resolve_path(ctx, raw)
        except ToolError:
            continue
        if not path.is_file() or lsp.command(_language(path)) is None:
            continue
        try:
            found = await lsp.server_for(path)
            diagnostics = await asyncio.wait_for(found.diagnostics_for(path, wait),
                                                 wait + lsp.start_timeout)
        except (LspProblem, TimeoutError, OSError):
            continue
        text = render_diagnostics(diagnostics, cap)
        if text:
            notes.append(f"Diagnostics for {display_path(ctx, path)} ({Path(found.argv[0]).name}):\n{text}")
    if notes:
        result.content = "\n\n".join([result.content, *notes])
    return result


def _language(path: Path) -> str:

    return language_of(path)
