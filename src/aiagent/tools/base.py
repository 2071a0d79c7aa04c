"""The Tool contract, the context a tool runs in, and the registry.

A tool is a plain object with ``name``, ``description``, ``input_schema`` (JSON Schema),
``effect`` (a :class:`ToolEffect`: what a call may do, and which arguments name the files or
the command it acts on) and ``async run(args, ctx) -> ToolResult``. Arguments are validated against the schema
before ``run`` is called. A tool signals a failure the model should read by raising
:class:`ToolError` or returning ``ToolResult(..., is_error=True)``; anything else it raises
is caught by the loop and reported to the model too.

Built-in tools are registered by name → dotted path and imported on first use.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from aiagent.core.events import AgentEvent
    from aiagent.providers.base import ToolSpec


class ToolError(Exception):
    """A failure the model should read (bad path, no match, ...). One clear line."""


EffectKind = Literal["read", "write", "execute", "network"]
PATCH_HEADERS = ("*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: ")


@dataclass(frozen=True, slots=True)
class ToolEffect:
    """What a call of a tool may do, declared by the tool; the approval policy and the
    front-ends read this, never the tool's name.

    ``kinds``: ``read`` (reads only), ``write`` (changes files or repository state),
    ``execute`` (runs programs), ``network`` (talks to other hosts). ``path_args`` name the
    arguments that hold a path the call touches, ``patch_args`` those that hold an
    ``apply_patch`` text (its file headers name the paths), ``command_args`` those that hold
    a shell command line. ``approved_by`` says where the effects were already approved (a
    skill's permissions when it activated, the command that started a process); such a call
    does not ask again. A tool that declares nothing is treated as :data:`UNDECLARED`.
    """

    kinds: frozenset[EffectKind]
    path_args: tuple[str, ...] = ()
    patch_args: tuple[str, ...] = ()
    command_args: tuple[str, ...] = ()
    approved_by: str = ""

    @classmethod
    def of(cls, *kinds: EffectKind, **fields: Any) -> ToolEffect:
        return cls(frozenset(kinds), **fields)

    @property
    def read_only(self) -> bool:
        return self.kinds == frozenset({"read"})

    @property
    def writes(self) -> bool:
        return "write" in self.kinds

    @property
    def executes(self) -> bool:
        return "execute" in self.kinds

    def paths(self, args: dict[str, Any]) -> list[str]:
        """The paths a call with ``args`` touches, as given (not resolved)."""
        found = [str(args[k]) for k in self.path_args if isinstance(args.get(k), str)]
        for key in self.patch_args:
            found += patch_header_paths(str(args.get(key, "")))
        return found

    def command(self, args: dict[str, Any]) -> str | None:
        """The shell command line of a call with ``args``, or None when it has none."""
        for key in self.command_args:
            if key in args:
                return command_line(args[key])
        return None


#: Reads only (files, the repository, the agent's own job table).
READ = ToolEffect.of("read")
#: What a tool that declares nothing is taken to do: run anything, so it always asks.
UNDECLARED = ToolEffect.of("execute")


def effect_of(tool: object) -> ToolEffect:
    """The tool's declared effect, or :data:`UNDECLARED` (skills, MCP, plug-ins)."""
    effect = getattr(tool, "effect", None)
    return effect if isinstance(effect, ToolEffect) else UNDECLARED


def command_line(command: Any) -> str:
    """A shell command argument as one line: a string as is; an argv joined, or the script
    of ``sh -c SCRIPT`` (also bash/zsh, ``-lc``, ``-ic``)."""
    import shlex

    if isinstance(command, list):
        argv = [str(a) for a in command]
        if len(argv) >= 3 and argv[0].rsplit("/", 1)[-1] in ("sh", "bash", "zsh") \
                and argv[1] in ("-c", "-lc", "-ic"):
            return argv[2]
        return shlex.join(argv)
    return str(command)


def patch_header_paths(text: str) -> list[str]:
    """The paths an ``apply_patch`` text touches, read by the tool's own strict parser.

    A patch that parser refuses is never applied; for it, every header-like line counts,
    leading white space or not, so the approval policy still sees each path it names."""
    from aiagent.tools.patch import PatchError, patch_paths

    try:
        return patch_paths(text)
    except PatchError:
        return [line.split(": ", 1)[1].strip() for line in text.splitlines()
                if line.lstrip().startswith(PATCH_HEADERS) and ": " in line]


@dataclass(slots=True)
class ToolResult:
    content: str
    is_error: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ToolContext:
    """What a running tool may use.

    ``workspace`` is the project root (paths resolve inside it); ``emit`` sends live events
    (tool output, file diffs) to the front-end; ``cancel`` is set when the run is cancelled;
    ``settings`` is the tool's slice of configuration (``[tools]`` table); ``call_id`` is the
    id of this tool call; ``state`` is shared by all tools of one agent run (for example the
    files the model has read, and their mtimes). ``sandbox_required`` is set when the call
    runs without a person approving it (read-only mode, a saved or configured rule,
    full-auto): a command it starts must run in the sandbox where one is available.
    ``notes`` are lines a tool adds for the model (for example that no sandbox was used).
    """

    workspace: Path
    call_id: str = ""
    emit: Callable[[AgentEvent], None] = lambda _event: None
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    settings: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    allow_outside_workspace: bool = False
    sandbox_required: bool = False
    notes: list[str] = field(default_factory=list)


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    input_schema: dict[str, Any]
    #: What a call may do; approval policies and front-ends read it (see :func:`effect_of`).
    effect: ToolEffect

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


#: Built-in tools: name -> "module:attribute". The attribute is a Tool class (called with no
#: arguments) or a factory returning a Tool.
BUILTIN_TOOLS: dict[str, str] = {
    "read_file": "aiagent.tools.files:ReadFileTool",
    "list_dir": "aiagent.tools.files:ListDirTool",
    "write_file": "aiagent.tools.files:WriteFileTool",
    "edit": "aiagent.tools.files:EditTool",
    "apply_patch": "aiagent.tools.files:ApplyPatchTool",
    "shell": "aiagent.tools.shell.tools:ShellTool",
    "shell_command": "aiagent.tools.shell.tools:ShellCommandTool",
    "job_list": "aiagent.tools.shell.tools:JobListTool",
    "job_output": "aiagent.tools.shell.tools:JobOutputTool",
    "job_kill": "aiagent.tools.shell.tools:JobKillTool",
    "exec_command": "aiagent.tools.shell.sessions:ExecCommandTool",
    "write_stdin": "aiagent.tools.shell.sessions:WriteStdinTool",
    "grep_files": "aiagent.tools.search:GrepFilesTool",
    "search": "aiagent.tools.search:SearchTool",
    "glob": "aiagent.tools.search:GlobTool",
    "git_status": "aiagent.tools.git:GitStatusTool",
    "git_diff": "aiagent.tools.git:GitDiffTool",
    "git_log": "aiagent.tools.git:GitLogTool",
    "git_commit": "aiagent.tools.git:GitCommitTool",
    "git_branch": "aiagent.tools.git:GitBranchTool",
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
        from aiagent.providers.base import ToolSpec

        return [ToolSpec(t.name, t.description, t.input_schema) for t in self.tools(names)]


async def release_tool_state(state: dict[str, Any]) -> None:
    """End of a run: stop what tools left running in ``state`` (shell sessions, jobs).

    Only tools that were used can hold anything, so nothing is imported for this.
    """
    import sys

    if "aiagent.tools.shell.runtime" in sys.modules:
        from aiagent.tools.shell import shutdown

        await shutdown(state)


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
        parts.append(f"{where}: {err.message}")
    return f"invalid arguments for {tool.name}: " + "; ".join(parts)
