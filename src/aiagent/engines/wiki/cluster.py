"""Stage 3: files → modules. Folders are the prior (one module per folder); folders are
folded into their parents while there are too many modules, and a lone file joins the
sibling module its imports tie it to. Module dependencies come from resolved imports."""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field

from aiagent.engines.wiki.model import CodeModel

MAX_MODULES = 40


@dataclass(slots=True)
class Module:
    id: str  # a slug: page name and diagram node id
    name: str  # the folder ("." for the project root)
    files: list[str]
    is_test: bool
    deps_out: Counter[str] = field(default_factory=Counter)  # module id -> imports
    deps_in: Counter[str] = field(default_factory=Counter)

    @property
    def title(self) -> str:
        return "(project root)" if self.name == "." else self.name


def cluster(model: CodeModel, max_modules: int = MAX_MODULES) -> list[Module]:
    key = {rel: _folder(rel) for rel in model.files}
    while len(set(key.values())) > max_modules:
        key = _fold_smallest(key)
    _join_lone_files(model, key)
    return _modules(model, key)


def _fold_smallest(key: dict[str, str]) -> dict[str, str]:
    """Fold the sub-folders of the parent whose folded module would be smallest into it
    (small, deep folders go first; a big package keeps its sub-packages longest)."""
    sizes = Counter(key.values())
    merged: Counter[str] = Counter()
    for folder, n in sizes.items():
        if folder != ".":
            merged[_parent(folder)] += n
    for parent in merged:
        merged[parent] += sizes.get(parent, 0)
    target = min(merged, key=lambda p: (merged[p], -p.count("/"), p))
    return {rel: (target if k != "." and _parent(k) == target else k) for rel, k in key.items()}


def _folder(rel: str) -> str:
    return posixpath.dirname(rel) or "."


def _parent(folder: str) -> str:
    return posixpath.dirname(folder) or "."


def _join_lone_files(model: CodeModel, key: dict[str, str]) -> None:
    sizes = Counter(key.values())
    for rel, k in sorted(key.items()):
        if sizes[k] != 1 or k == ".":
            continue
        fm = model.files[rel]
        ties = Counter(key[t] for t in fm.resolved if t in key and key[t] != k)
        ties.update(key[o] for o, other in model.files.items() if rel in other.resolved and key[o] != k)
        siblings = [(n, m) for m, n in ties.items() if _parent(m) == _parent(k) and sizes[m] > 1
                    and model.files[rel].is_test == _is_test_key(model, key, m)]
        if siblings:
            target = max(siblings)[1]
            key[rel], sizes[k], sizes[target] = target, 0, sizes[target] + 1


def _is_test_key(model: CodeModel, key: dict[str, str], k: str) -> bool:
    return all(model.files[r].is_test for r, v in key.items() if v == k)


def _modules(model: CodeModel, key: dict[str, str]) -> list[Module]:
    groups: dict[str, list[str]] = {}
    for rel, k in sorted(key.items()):
        groups.setdefault(k, []).append(rel)
    ids = _slugs(sorted(groups))
    modules = {k: Module(ids[k], k, files, all(model.files[f].is_test for f in files))
               for k, files in groups.items()}
    for rel, fm in model.files.items():
        src = modules[key[rel]]
        for target in fm.resolved:
            dst = modules[key[target]]
            if dst is not src:
                src.deps_out[dst.id] += 1
                dst.deps_in[src.id] += 1
    return sorted(modules.values(), key=lambda m: m.name)


def _slugs(names: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "root"
        slug, n = base, 2
        while slug in used:
            slug, n = f"{base}-{n}", n + 1
        used.add(slug)
        out[name] = slug
    return out
