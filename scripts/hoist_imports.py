"""Hoist function-local imports of aiagent's own modules to module level where that costs
nothing: no new third-party module at import time, no import cycle, not on the start-up path,
not a name the tests replace on purpose. Usage: python scripts/hoist_imports.py src [--apply]
[--skip=aiagent.engines.x]; then ruff check --fix and the tests."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve()
APPLY = "--apply" in sys.argv
SKIP = tuple(a.split("=", 1)[1] for a in sys.argv if a.startswith("--skip="))
PKG = ROOT / "aiagent"
# modules whose import time matters (aiagent --help, the TUI's first frame, ...): keep lazy
LIGHT = {"aiagent", "aiagent.__main__", "aiagent.frontends", "aiagent.frontends.cli",
         "aiagent.frontends.cli.app", "aiagent.frontends.cli.errors", "aiagent.frontends.tui",
         "aiagent.frontends.tui.terminal", "aiagent.frontends.tui.firstframe",
         "aiagent.infra.config.paths",
         "aiagent.sdk", "aiagent.testing"}


def modname(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {modname(p): p for p in PKG.rglob("*.py")}
TREES = {m: ast.parse(p.read_text("utf-8")) for m, p in MODULES.items()}


def target_modules(node: ast.ImportFrom | ast.Import, here: str) -> list[str]:
    out = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = here.split(".")
            if MODULES[here].name != "__init__.py":
                base = base[:-1]
            base = base[: len(base) - node.level + 1]
            mod = ".".join(base + ([node.module] if node.module else []))
        else:
            mod = node.module or ""
        names = [mod] + [f"{mod}.{a.name}" for a in node.names]
    for n in names:
        if n in MODULES:
            out.append(n)
        # parent packages are imported too
        parts = n.split(".")
        for i in range(1, len(parts)):
            parent = ".".join(parts[:i])
            if parent in MODULES:
                out.append(parent)
    return sorted(set(out))


def is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def top_level(tree: ast.Module):
    """Module-level import nodes (not under TYPE_CHECKING; try/except included)."""
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.Try) or isinstance(node, ast.If) and not is_type_checking(node):
            for sub in node.body:
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    yield sub


def third_party(node) -> set[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level or not node.module:
            return set()
        names = [node.module]
    out = set()
    for n in names:
        top = n.split(".")[0]
        if top != "aiagent" and top not in sys.stdlib_module_names and top != "__future__":
            out.add(top)
    return out


GRAPH: dict[str, set[str]] = {m: set() for m in MODULES}
THIRD: dict[str, set[str]] = {m: set() for m in MODULES}
for m, tree in TREES.items():
    for node in top_level(tree):
        GRAPH[m].update(t for t in target_modules(node, m) if t != m)
        THIRD[m] |= third_party(node)
    parts = m.split(".")
    for i in range(1, len(parts)):  # importing m imports its parents
        parent = ".".join(parts[:i])
        if parent in MODULES:
            GRAPH[m].add(parent)


def closure(m: str) -> set[str]:
    seen, todo = set(), [m]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        todo.extend(GRAPH[x])
    return seen


def third_closure(m: str) -> set[str]:
    out = set()
    for x in closure(m):
        out |= THIRD[x]
    return out


def local_imports(tree: ast.Module):
    """(function node, import node) for imports inside functions (not nested in TYPE_CHECKING)."""
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for stmt in fn.body:
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    yield fn, stmt


def bound_names(node) -> list[tuple[str, str]]:
    """(bound name, what it is) for an import node."""
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            out.append(((a.asname or a.name).split(".")[0], a.name if a.asname else a.name.split(".")[0]))
    else:
        for a in node.names:
            out.append((a.asname or a.name, f"{'.' * node.level}{node.module}:{a.name}"))
    return out


def module_bindings(tree: ast.Module) -> dict[str, set[str]]:
    """Names bound at module level (not under TYPE_CHECKING) -> what binds them."""
    out: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, what in bound_names(node):
                out.setdefault(name, set()).add(what)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.setdefault(node.name, set()).add(f"def:{node.lineno}")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for tg in targets:
                for n in ast.walk(tg):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, set()).add(f"assign:{node.lineno}")
        elif isinstance(node, (ast.If, ast.Try)) and not (isinstance(node, ast.If) and is_type_checking(node)):
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    for name, what in bound_names(sub):
                        out.setdefault(name, set()).add(what)
    return out


def local_bindings(tree: ast.Module) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for _, node in local_imports(tree):
        for name, what in bound_names(node):
            out.setdefault(name, set()).add(what)
    return out


def patched_names() -> set[str]:
    """Names the tests replace on a module (monkeypatch.setattr, mock.patch): a local import
    of one binds late on purpose (the replacement is seen), so it stays local."""
    import re
    tests = ROOT.parent / "tests"
    out: set[str] = set()
    pattern = re.compile(r"""(?:monkeypatch\.setattr|mock\.patch(?:\.object)?|patch(?:\.object)?)\(\s*(?:[\w.]+\s*,\s*)?["']([\w.]+)["']""")
    for path in tests.rglob("*.py"):
        for name in pattern.findall(path.read_text("utf-8", "replace")):
            out.add(name.rsplit(".", 1)[-1])
    return out


PATCHED = patched_names()


def plan():
    hoist: dict[str, list[ast.stmt]] = {}
    counts = {"own": 0, "hoisted": 0, "cycle": 0, "third": 0, "light": 0, "other": 0}
    for m in sorted(MODULES):
        tree = TREES[m]
        bound, local = module_bindings(tree), local_bindings(tree)
        for _fn, node in local_imports(tree):
            targets = [t for t in target_modules(node, m) if t != m]
            clash = False
            if isinstance(node, ast.ImportFrom) and any(a.name in PATCHED for a in node.names):
                counts["patched"] = counts.get("patched", 0) + 1
                continue
            for name, what in bound_names(node):
                if bound.get(name, {what}) != {what} or len(local.get(name, set())) > 1:
                    clash = True
                # a parameter or local variable of the same name in any function
                for fn2 in ast.walk(tree):
                    if isinstance(fn2, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        args = [a.arg for a in fn2.args.args + fn2.args.kwonlyargs + fn2.args.posonlyargs]
                        if name in args:
                            clash = True
            if clash:
                counts["clash"] = counts.get("clash", 0) + 1
                continue
            if not targets or third_party(node):
                counts["other"] += 1
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 0 and not (node.module or "").startswith("aiagent"):
                counts["other"] += 1
                continue
            counts["own"] += 1
            if SKIP and m.startswith(SKIP):
                counts["skipped"] = counts.get("skipped", 0) + 1
                continue
            if m in LIGHT:
                counts["light"] += 1
                continue
            if any(m in closure(t) for t in targets):
                counts["cycle"] += 1
                continue
            new_third = set().union(*(third_closure(t) for t in targets)) - third_closure(m)
            if new_third:
                counts["third"] += 1
                continue
            GRAPH[m].update(targets)
            hoist.setdefault(m, []).append(node)
            counts["hoisted"] += 1
    return hoist, counts


def apply(hoist):
    for m, nodes in hoist.items():
        path = MODULES[m]
        lines = path.read_text("utf-8").split("\n")
        texts = []
        drop = set()
        for node in nodes:
            seg = lines[node.lineno - 1: node.end_lineno]
            texts.append("\n".join(s.strip() if i == 0 else s for i, s in enumerate(seg)))
            drop.update(range(node.lineno - 1, node.end_lineno))
        kept = [line for i, line in enumerate(lines) if i not in drop]
        tree = TREES[m]
        # insert after the last top-level import (before TYPE_CHECKING blocks is fine too)
        last = 0
        for index, node in enumerate(tree.body):
            if index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                last = node.end_lineno
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                last = node.end_lineno
            elif isinstance(node, ast.If) and is_type_checking(node):
                continue
            else:
                break
        shift = sum(1 for i in drop if i < last)
        at = last - shift
        kept[at:at] = ["\n".join(x.strip() for x in text.split("\n")) for text in texts]
        path.write_text("\n".join(kept), "utf-8")


if __name__ == "__main__":
    hoist, counts = plan()
    print(counts)
    if APPLY:
        apply(hoist)
        print("applied to", len(hoist), "modules")
