"""The Tool contract: the protocol a tool implements, what a call may do, its context and result.

A tool is a plain object with ``name``, ``description``, ``input_schema`` (JSON Schema),
``effect`` (a :class:`ToolEffect`: what a call may do, and which arguments name the files or
the command it acts on) and ``async run(args, ctx) -> ToolResult``. Arguments are validated
against the schema before ``run`` is called. A tool signals a failure the model should read by
raising :class:`ToolError` or returning ``ToolResult(..., is_error=True)``; anything else it
raises is caught by the loop and reported to the model too. The registry of tools lives in
:mod:`aiagent.agent.tools.base`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from aiagent.contracts.messages import ImagePart

if TYPE_CHECKING:
    import asyncio

    from aiagent.contracts.events import AgentEvent


def _new_event() -> asyncio.Event:
    import asyncio  # (when a tool runs: importing the contracts stays light)

    return asyncio.Event()


class ToolError(Exception):
    """A failure the model should read (bad path, no match, ...). One clear line."""


EffectKind = Literal["read", "write", "execute", "network"]
PATCH_HEADERS = ("*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: ")


def patch_header_lines(text: str) -> list[str]:
    """The paths an ``apply_patch`` text names: every header-like line counts, leading white
    space or not. A tool with a stricter parser declares it as its effect's ``patch_reader``."""
    return [line.split(": ", 1)[1].strip() for line in text.splitlines()
            if line.lstrip().startswith(PATCH_HEADERS) and ": " in line]


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
    #: Reads the paths out of an ``apply_patch`` text (see ``patch_args``).
    patch_reader: Callable[[str], list[str]] = field(
        default=patch_header_lines, compare=False, repr=False)

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
            found += self.patch_reader(str(args.get(key, "")))
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


@dataclass(slots=True)
class ToolResult:
    """What a call gives the model: text, and images (at most
    ``MAX_IMAGES_PER_RESULT``; a model without vision reads a note for each instead)."""

    content: str
    is_error: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    images: list[ImagePart] = field(default_factory=list)


@runtime_checkable
class FileAccess(Protocol):
    """How a front-end lets tools see files as its user does: an editor's unsaved buffers
    (``fs/read_text_file`` over ACP). The tool has resolved and checked the path first
    (workspace scope, protected paths); ``None`` means: read the disk."""

    async def read_text(self, path: Path) -> str | None: ...


@runtime_checkable
class FileWriteAccess(Protocol):
    """A :class:`FileAccess` that can also save files the way its user does: through an
    editor (``fs/write_text_file`` over ACP), so the editor's buffers show the change. The
    tool has resolved and checked the path (workspace scope, symlinks, protected paths,
    approval) and computed the whole new text first; only the final write is handed over.
    ``can_write`` False means: write the disk as usual. ``write_text`` raises when the
    front-end fails; the tool then reports an error."""

    @property
    def can_write(self) -> bool: ...

    async def write_text(self, path: Path, text: str) -> None: ...


def file_writer(ctx: ToolContext) -> FileWriteAccess | None:
    """The front-end's writer when it offers one (see :class:`FileWriteAccess`), else None."""
    files = ctx.files
    if isinstance(files, FileWriteAccess) and files.can_write:
        return files
    return None


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
    ``files``: the front-end's view of files (see :class:`FileAccess`), or None for the disk.
    """

    workspace: Path
    call_id: str = ""
    emit: Callable[[AgentEvent], None] = lambda _event: None
    cancel: asyncio.Event = field(default_factory=_new_event)
    settings: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    allow_outside_workspace: bool = False
    sandbox_required: bool = False
    notes: list[str] = field(default_factory=list)
    files: FileAccess | None = None


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    input_schema: dict[str, Any]
    #: What a call may do; approval policies and front-ends read it (see :func:`effect_of`).
    effect: ToolEffect

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...
