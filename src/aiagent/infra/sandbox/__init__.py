"""Run shell commands with writes confined to the workspace and temp, and no network.

Backends, detected at run time (the first that works is used unless one is configured):
``bubblewrap`` (Linux, the ``bwrap`` program), ``landlock`` (Linux kernel ≥ 5.13; TCP is
blocked from ABI 4 on), ``seatbelt`` (macOS ``sandbox-exec``). When none works,
:func:`detect` says why and callers ask before running.

A shell tool wraps its argv just before spawning it::

    from aiagent.infra.sandbox import wrap_for_settings
    argv = wrap_for_settings(argv, ctx.workspace, ctx.settings)

which returns ``argv`` unchanged unless ``ctx.settings["sandbox"]["enabled"]`` is true.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from aiagent.infra.config.model import SandboxSettings

BACKENDS = ("bubblewrap", "landlock", "seatbelt")
CHOICES = ("auto", "none", *BACKENDS)
# entries of the workspace root that sandboxed commands may read but never write
PROTECTED = (".git", ".agent", ".claude", ".agents")


class SandboxUnavailable(Exception):
    """No sandbox can be used here; the message says why."""


@dataclass(frozen=True, slots=True)
class SandboxInfo:
    backend: str  # bubblewrap | landlock | seatbelt | none
    detail: str  # version, ABI, or why none works
    network_isolation: str  # "full", "tcp", or "none"
    not_enforced: tuple[str, ...] = ()  # what this backend leaves open here, in plain words

    @property
    def available(self) -> bool:
        return self.backend != "none"


def _probe(backend: str) -> SandboxInfo | str:
    """Info when ``backend`` works here, else the reason it does not."""
    if backend == "bubblewrap":
        from aiagent.infra.sandbox import bubblewrap

        return bubblewrap.probe()
    if backend == "landlock":
        from aiagent.infra.sandbox import landlock

        return landlock.probe()
    from aiagent.infra.sandbox import seatbelt

    return seatbelt.probe()


@cache
def detect(preferred: str = "auto") -> SandboxInfo:
    """The sandbox to use: ``preferred`` if it works, or with ``auto`` the first that does."""
    if preferred == "none":
        return SandboxInfo("none", "disabled in config ([sandbox] backend = \"none\")", "none")
    if preferred not in CHOICES:
        return SandboxInfo("none", f"unknown sandbox backend {preferred!r} "
                                   f"(known: {', '.join(CHOICES)})", "none")
    reasons = []
    for backend in BACKENDS if preferred == "auto" else (preferred,):
        found = _probe(backend)
        if isinstance(found, SandboxInfo):
            return found
        reasons.append(f"{backend}: {found}")
    return SandboxInfo("none", "; ".join(reasons), "none")


def writable_paths(workspace: Path, extra: Iterable[str | Path] = (), *,
                   temps: bool = True) -> list[Path]:
    """The workspace, the temp folders (unless ``temps`` is false: bubblewrap gives a
    private /tmp instead), and any extra paths that exist."""
    found: list[Path] = []
    shared = {"/tmp", "/var/tmp", os.environ.get("TMPDIR", ""), tempfile.gettempdir()} if temps else set()
    for item in [workspace, *sorted(t for t in shared if t), *extra]:
        path = Path(os.path.expanduser(str(item)))
        if path.exists():
            resolved = path.resolve()
            if resolved not in found:
                found.append(resolved)
    return found


def protected_paths(workspace: Path, names: Iterable[str] | None, writable: Iterable[Path]) -> list[Path]:
    """The entries ``names`` (relative to the workspace root; default :data:`PROTECTED`)
    that exist and, resolved, lie beneath a writable path: those stay read-only."""
    roots = [Path(p) for p in writable]
    found: list[Path] = []
    for name in PROTECTED if names is None else names:
        path = Path(workspace) / os.path.expanduser(name)
        if not os.path.lexists(path):
            continue
        target = path.resolve()
        if target not in found and any(target.is_relative_to(root) for root in roots):
            found.append(target)
    return found


def sandbox_argv(
    argv: Sequence[str],
    workspace: Path,
    allow_network: bool = False,
    *,
    writable: Iterable[str | Path] = (),
    backend: str | None = None,
    protected: Iterable[str] | None = None,
    shared_temps: bool = True,
) -> list[str]:
    """``argv`` wrapped so that it can write only to the workspace, temp and ``writable``
    (never to the ``protected`` entries of the workspace, default :data:`PROTECTED`), and
    reach no network unless ``allow_network``. Raises :class:`SandboxUnavailable`.

    ``shared_temps=False`` leaves the host's temp folders read-only under Landlock and
    Seatbelt too (bubblewrap always gives a private ``/tmp``): pass a temp folder of the
    command's own in ``writable`` then."""
    info = detect(backend or "auto")
    if not info.available:
        raise SandboxUnavailable(f"no sandbox available: {info.detail}")
    paths = writable_paths(workspace, writable, temps=shared_temps and info.backend != "bubblewrap")
    frozen = protected_paths(workspace, protected, paths)
    if info.backend == "bubblewrap":
        from aiagent.infra.sandbox import bubblewrap

        return bubblewrap.wrap(list(argv), paths, allow_network, frozen)
    if info.backend == "landlock":
        from aiagent.infra.sandbox import landlock

        return landlock.wrap(list(argv), paths, allow_network, frozen)
    from aiagent.infra.sandbox import seatbelt

    return seatbelt.wrap(list(argv), paths, allow_network, frozen)


def wrap_for_settings(argv: Sequence[str], workspace: Path, settings: Mapping[str, Any]) -> list[str]:
    """For tools: wrap ``argv`` when ``settings["sandbox"]["enabled"]`` (set by the builder
    in full-auto mode or with ``[sandbox] always``), else return it unchanged."""
    config = settings.get("sandbox") or {}
    if not config.get("enabled"):
        return list(argv)
    protected = config.get("protected")
    return sandbox_argv(
        argv, workspace, bool(config.get("network", False)),
        writable=config.get("writable", ()), backend=config.get("backend") or None,
        protected=None if protected is None else [str(p) for p in protected],
    )


def tool_settings(config: SandboxSettings, mode: str) -> dict[str, Any]:
    """The ``sandbox`` entry of the tools' settings for this ``[sandbox]`` config and mode."""
    wanted = mode == "full-auto" or config.always
    info = detect(config.backend) if wanted else SandboxInfo("none", "", "")
    return {
        "enabled": wanted and info.available,
        "backend": info.backend if info.available else "",
        "network": config.network,
        "writable": [str(p) for p in config.writable],
        "protected": [str(p) for p in config.protected],
    }


def state(config: SandboxSettings) -> str:
    """For the approval policy: active, off (chosen in config) or unavailable."""
    if config.backend == "none":
        return "off"
    return "active" if detect(config.backend).available else "unavailable"


def platform_note() -> str:
    if sys.platform.startswith("linux"):
        return "Linux: install bubblewrap (apt install bubblewrap) or use a kernel with Landlock"
    if sys.platform == "darwin":
        return "macOS: /usr/bin/sandbox-exec is used when present"
    return f"{sys.platform}: no sandbox backend is supported on this platform"
