"""``xcrun`` dispatch (FR-6.8) for an allow-list: ``swift-demangle`` (symbols), ``strings``
(printable strings of a binary in the workspace), ``xctrace list`` (Instruments templates
or devices). Anything else is refused. ``sourcekit-lsp`` is not run here: the LSP client
starts it (``tools/lsp/servers.toml``, swift: ``sourcekit-lsp`` or ``xcrun sourcekit-lsp``)."""

from __future__ import annotations

import json
from typing import Any

from aiagent.agent.tools.apple.commands import last_line, run_small
from aiagent.agent.tools.apple.gating import GatedTool
from aiagent.agent.tools.apple.schemas import load_schema
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError

MAX_LINES = 500


class XcrunTool(GatedTool):
    name = "xcrun"
    description = ("Run an allow-listed Xcode developer tool through xcrun: swift-demangle (symbols), "
                   "strings (a binary's printable strings), xctrace (list Instruments templates or devices).")
    effect = ToolEffect.of("execute", path_args=("path",))
    input_schema = load_schema("xcrun.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        argv = _argv(args, ctx)
        code, out, err = await run_small(["xcrun", *argv], ctx.workspace)
        if code != 0:
            raise ToolError(f"xcrun {argv[0]} failed (exit {code}): {last_line(err or out)}")
        lines = out.splitlines()
        return json.dumps({"tool": argv[0], "lines": len(lines), "cut": max(0, len(lines) - MAX_LINES),
                           "output": "\n".join(lines[:MAX_LINES])}, indent=1, ensure_ascii=False)


def _argv(args: dict[str, Any], ctx: ToolContext) -> list[str]:
    tool = str(args["tool"])
    if tool == "swift-demangle":
        symbols = [str(s) for s in args.get("symbols") or []]
        if not symbols or any(s.startswith("-") for s in symbols):
            raise ToolError("swift-demangle needs `symbols`: mangled names (not options), like $s4main3FooV")
        return ["swift-demangle", "--compact", *symbols]
    if tool == "strings":
        if not args.get("path"):
            raise ToolError("strings needs `path`: a binary in the workspace")
        path = resolve_path(ctx, str(args["path"]))
        if not path.is_file():
            raise ToolError(f"path {args['path']}: no such file")
        return ["strings", "-a", "--", str(path)]
    if tool == "xctrace":
        what = str(args.get("list") or "templates")
        return ["xctrace", "list", what]
    raise ToolError(f"tool {tool!r} is not allowed; use swift-demangle, strings or xctrace")
