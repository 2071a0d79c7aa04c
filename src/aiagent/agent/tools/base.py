"""The registry of tools, argument validation, and the strict reading of a patch's paths.

The Tool contract itself (``Tool``, ``ToolEffect``, ``ToolContext``, ``ToolResult``,
``ToolError``) is :mod:`aiagent.contracts.tools`. Built-in tools are registered by name →
dotted path and imported on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from aiagent.agent.tools.apple import TOOLS as APPLE_TOOLS
from aiagent.agent.tools.patch import PatchError, patch_paths
from aiagent.contracts.providers import ToolSpec
from aiagent.contracts.tools import Tool, patch_header_lines

#: Built-in tools: name -> "module:attribute". The attribute is a Tool class (called with no
#: arguments) or a factory returning a Tool.
BUILTIN_TOOLS: dict[str, str] = {
    "read_file": "aiagent.agent.tools.files:ReadFileTool",
    "list_dir": "aiagent.agent.tools.files:ListDirTool",
    "write_file": "aiagent.agent.tools.files:WriteFileTool",
    "edit": "aiagent.agent.tools.files:EditTool",
    "apply_patch": "aiagent.agent.tools.files:ApplyPatchTool",
    "shell": "aiagent.agent.tools.shell.tools:ShellTool",
    "shell_command": "aiagent.agent.tools.shell.tools:ShellCommandTool",
    "job_list": "aiagent.agent.tools.shell.tools:JobListTool",
    "job_output": "aiagent.agent.tools.shell.tools:JobOutputTool",
    "job_kill": "aiagent.agent.tools.shell.tools:JobKillTool",
    "exec_command": "aiagent.agent.tools.shell.sessions:ExecCommandTool",
    "write_stdin": "aiagent.agent.tools.shell.sessions:WriteStdinTool",
    "grep_files": "aiagent.agent.tools.search:GrepFilesTool",
    "search": "aiagent.agent.tools.search:SearchTool",
    "glob": "aiagent.agent.tools.search:GlobTool",
    "ast_search": "aiagent.agent.tools.ast:AstSearchTool",
    "repo_map": "aiagent.agent.tools.repomap:RepoMapTool",
    "lsp_definition": "aiagent.agent.tools.lsp.tools:LspDefinitionTool",
    "lsp_references": "aiagent.agent.tools.lsp.tools:LspReferencesTool",
    "lsp_hover": "aiagent.agent.tools.lsp.tools:LspHoverTool",
    "lsp_diagnostics": "aiagent.agent.tools.lsp.tools:LspDiagnosticsTool",
    "lsp_symbols": "aiagent.agent.tools.lsp.tools:LspSymbolsTool",
    "git_status": "aiagent.agent.tools.git:GitStatusTool",
    "git_diff": "aiagent.agent.tools.git:GitDiffTool",
    "git_log": "aiagent.agent.tools.git:GitLogTool",
    "git_commit": "aiagent.agent.tools.git:GitCommitTool",
    "git_branch": "aiagent.agent.tools.git:GitBranchTool",
    "web_fetch": "aiagent.agent.tools.web:WebFetchTool",
    "web_search": "aiagent.agent.tools.web:WebSearchTool",
    "schedule_task": "aiagent.agent.tools.schedule:ScheduleTaskTool",
    "update_plan": "aiagent.agent.tools.plan:UpdatePlanTool",
    "task": "aiagent.agent.tools.task:TaskTool",  # wired to its subagents by aiagent.app
    **APPLE_TOOLS,  # tools/apple/tools.toml: offered only where their platform is (tools.apple.gating)
}


class ToolRegistry:
    """Tools by name; built-ins are imported lazily on first ``get``."""

    def __init__(self, lazy: dict[str, str] | None = None) -> None:
        self._lazy: dict[str, str] = dict(BUILTIN_TOOLS if lazy is None else lazy)
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> None:
        self._tools[tool.name] = tool
        self._lazy.pop(tool.name, None)

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)
        self._lazy.pop(name, None)

    def names(self) -> list[str]:
        return sorted({*self._tools, *self._lazy})

    def __contains__(self, name: object) -> bool:
        return name in self._tools or name in self._lazy

    def get(self, name: str) -> Tool | None:
        tool = self._tools.get(name)
        if tool is None and name in self._lazy:
            module_name, _, attr = self._lazy.pop(name).partition(":")
            factory = getattr(importlib.import_module(module_name), attr)
            tool = factory()
            self._tools[name] = tool
        return tool

    def tools(self, names: Iterable[str] | None = None) -> list[Tool]:
        chosen = self.names() if names is None else [n for n in names if n in self]
        return [t for n in chosen if (t := self.get(n)) is not None]

    def specs(self, names: Iterable[str] | None = None) -> list[ToolSpec]:
        return [ToolSpec(t.name, t.description, t.input_schema) for t in self.tools(names)]


async def release_tool_state(state: dict[str, Any]) -> None:
    """End of a run: stop what tools left running in ``state`` (shell sessions, jobs).

    Only tools that were used can hold anything, so nothing is imported for this.
    """
    import sys

    if "aiagent.agent.tools.shell.runtime" in sys.modules:
        from aiagent.agent.tools.shell import shutdown

        await shutdown(state)
    if "aiagent.agent.tools.lsp.manager" in sys.modules:
        from aiagent.agent.tools.lsp.manager import shutdown as stop_servers

        await stop_servers(state)


ERROR_CHARS = 300  # of one schema error told to the model


def validate_args(tool: Tool, args: dict[str, Any]) -> str | None:
    """Check ``args`` against the tool's schema; return a message for the model, or None."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(tool.input_schema)
    errors = sorted(validator.iter_errors(args), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    parts = []
    for err in errors[:5]:
        where = "/".join(str(p) for p in err.absolute_path) or "(arguments)"
        message = err.message  # it quotes the bad value, which may be megabytes long
        if len(message) > ERROR_CHARS:
            message = message[: ERROR_CHARS - 1] + "…"
        parts.append(f"{where}: {message}")
    return f"invalid arguments for {tool.name}: " + "; ".join(parts)


def patch_header_paths(text: str) -> list[str]:
    """The paths an ``apply_patch`` text touches, read by the tool's own strict parser.

    A patch that parser refuses is never applied; for it, every header-like line counts,
    leading white space or not, so the approval policy still sees each path it names."""

    try:
        return patch_paths(text)
    except PatchError:
        return patch_header_lines(text)
