"""Find the files to scan once: honour .gitignore and excludes, skip what cannot matter.

Skipped files are counted by reason (ignored, excluded, vendored, cache, binary, huge,
minified) so a report can say what was not looked at. Tool caches (`__pycache__`,
`.mypy_cache`…) hold no third-party code, so they count as ``cache``, not ``vendored``.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from aiagent.infra.syntax.languages import BINARY_EXTENSIONS, classify

VENDORED_DIRS = frozenset(
    {"node_modules", "vendor", "third_party", "bower_components", "Pods", "Carthage",
     ".venv", "venv", "site-packages", ".tox", "dist", ".next", ".gradle", "DerivedData",
     ".terraform"}
)
CACHE_DIRS = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
ALWAYS_PRUNED = frozenset({".git", ".hg", ".svn", ".aiagent"})
DEFAULT_MAX_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path
    rel: str
    language: str
    size: int


@dataclass(slots=True)
class Inventory:
    root: Path
    files: list[SourceFile] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)


@dataclass(slots=True)
class _Dir:
    rel: str
    spec: pathspec.GitIgnoreSpec | None


def discover(
    root: Path,
    excludes: tuple[str, ...] = (),
    max_bytes: int = DEFAULT_MAX_BYTES,
    include_vendored: bool = False,
) -> Inventory:
    """Walk ``root`` (a directory or one file) and return what to scan."""
    root = root.resolve()
    if root.is_file():
        inv = Inventory(root.parent)
        _consider(inv, root, root.name, max_bytes)
        return inv
    inv = Inventory(root)
    exclude_spec = pathspec.GitIgnoreSpec.from_lines(excludes) if excludes else None
    specs: dict[str, _Dir] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        chain = _load_gitignore(specs, rel_dir, Path(dirpath))
        dirnames[:] = sorted(
            d for d in dirnames
            if _keep_dir(inv, rel_dir, d, chain, exclude_spec, include_vendored)
        )
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if _ignored(chain, rel, False):
                inv.skipped["ignored"] += 1
            elif exclude_spec is not None and exclude_spec.match_file(rel):
                inv.skipped["excluded"] += 1
            else:
                _consider(inv, Path(dirpath) / name, rel, max_bytes)
    return inv


def _keep_dir(inv: Inventory, rel_dir: str, name: str, chain: list[_Dir],
              exclude_spec: pathspec.GitIgnoreSpec | None, include_vendored: bool) -> bool:
    rel = f"{rel_dir}/{name}" if rel_dir else name
    if name in ALWAYS_PRUNED:
        return False
    if name in CACHE_DIRS:
        inv.skipped["cache"] += 1
        return False
    if not include_vendored and name in VENDORED_DIRS:
        inv.skipped["vendored"] += 1
        return False
    if _ignored(chain, rel, True):
        inv.skipped["ignored"] += 1
        return False
    if exclude_spec is not None and exclude_spec.match_file(rel + "/"):
        inv.skipped["excluded"] += 1
        return False
    return True


def _load_gitignore(specs: dict[str, _Dir], rel_dir: str, abs_dir: Path) -> list[_Dir]:
    gi = abs_dir / ".gitignore"
    spec = None
    if gi.is_file():
        try:
            spec = pathspec.GitIgnoreSpec.from_lines(gi.read_text("utf-8", "replace").splitlines())
        except (OSError, ValueError):
            spec = None
    specs[rel_dir] = _Dir(rel_dir, spec)
    chain = []
    parts = rel_dir.split("/") if rel_dir else []
    for i in range(len(parts) + 1):
        d = specs.get("/".join(parts[:i]))
        if d is not None and d.spec is not None:
            chain.append(d)
    return chain


def _ignored(chain: list[_Dir], rel: str, is_dir: bool) -> bool:
    for d in chain:
        sub = rel[len(d.rel) + 1:] if d.rel else rel
        if d.spec is not None and d.spec.match_file(sub + ("/" if is_dir else "")):
            return True
    return False


def _consider(inv: Inventory, path: Path, rel: str, max_bytes: int) -> None:
    if path.is_symlink():
        inv.skipped["symlink"] += 1
        return
    suffix = path.suffix.lower()
    if suffix in BINARY_EXTENSIONS:
        inv.skipped["binary"] += 1
        return
    if rel.endswith((".min.js", ".min.css", ".map")):
        inv.skipped["minified"] += 1
        return
    try:
        size = path.stat().st_size
    except OSError:
        inv.skipped["unreadable"] += 1
        return
    if size > max_bytes:
        inv.skipped["huge"] += 1
        return
    inv.files.append(SourceFile(path, rel, classify(rel), size))


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def looks_minified(data: bytes, language: str) -> bool:
    if language not in {"javascript", "typescript", "css", "json"} or len(data) < 4096:
        return False
    lines = data.count(b"\n") + 1
    return len(data) / lines > 500
