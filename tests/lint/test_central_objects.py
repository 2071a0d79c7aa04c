"""Central objects stay central (issue 26): the interactive app
(:class:`aiagent.frontends.tui.app.InteractiveApp`) and the skill runtime
(:class:`aiagent.agent.skills.runtime.SkillRuntime`) keep their own state. Their parts get
small state objects and call methods on them; no module but the class's own

* assigns (or deletes, or ``setattr``\\ s) an attribute of an instance, at any depth
  (``app.quit = …``, ``runtime.gate.approver = …``, ``app.blocks[0] = …``), or
* appends to or extends a list it reaches through the instance (``app.items.append(…)``),

and no module of the two packages reads or writes a name starting with ``_`` on any
object but ``self`` or ``cls`` (``app._checkpoint_task``, ``rt._started``).

An instance is a name or ``self.`` attribute annotated with the class, assigned from such
a name, or called by the packages' names for it (``app``; ``runtime``, ``rt``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "aiagent"
PACKAGES = ("frontends/tui", "agent/skills")


@dataclass(frozen=True)
class Central:
    cls: str
    module: str  # relative to SRC: the one module that may change its instances
    names: frozenset[str]  # what the packages call an instance


CENTRAL = (
    Central("InteractiveApp", "frontends/tui/app.py", frozenset({"app"})),
    Central("SkillRuntime", "agent/skills/runtime.py", frozenset({"runtime", "rt"})),
)
LIST_CHANGES = {"append", "extend", "insert"}


def _annotated(annotation: ast.expr | None, cls: str) -> bool:
    return annotation is not None and any(
        (isinstance(n, ast.Name) and n.id == cls) or (isinstance(n, ast.Attribute) and n.attr == cls)
        or (isinstance(n, ast.Constant) and isinstance(n.value, str) and cls in n.value)
        for n in ast.walk(annotation))


def holders(tree: ast.AST, central: Central) -> tuple[set[str], set[str]]:
    """(local names, ``self.`` attributes) that hold an instance of ``central``."""
    names, attrs = set(central.names), set(central.names)
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and _annotated(node.annotation, central.cls):
            names.add(node.arg)
        elif isinstance(node, ast.AnnAssign) and _annotated(node.annotation, central.cls):
            if isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node.target, ast.Attribute):
                attrs.add(node.target.attr)
    for node in ast.walk(tree):  # self.x = app
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in names:
            for target in node.targets:
                if isinstance(target, ast.Attribute) and _is_self(target.value):
                    attrs.add(target.attr)
    return names, attrs


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _is_holder(node: ast.expr, names: set[str], attrs: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    return isinstance(node, ast.Attribute) and _is_self(node.value) and node.attr in attrs


def _reaches(node: ast.expr, names: set[str], attrs: set[str]) -> bool:
    """``node`` is ``HOLDER.a.b[c]…`` (at least one step below the holder)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if _is_holder(node.value, names, attrs):
            return True
        node = node.value
    return False


def _stores(tree: ast.AST) -> list[tuple[int, ast.expr]]:
    found: list[tuple[int, ast.expr]] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            found += [(node.lineno, t) for t in ast.walk(target)
                      if isinstance(t, (ast.Attribute, ast.Subscript))
                      and isinstance(t.ctx, (ast.Store, ast.Del))]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("setattr", "delattr") and node.args:
            found.append((node.lineno, ast.Attribute(node.args[0], f"<{node.func.id}>", ast.Store())))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in LIST_CHANGES:
            found.append((node.lineno, node.func.value))
    return found


def problems(source: str, module: str) -> list[str]:
    """What ``source`` (the module at ``module``, relative to SRC) does that it may not."""
    tree = ast.parse(source, module)
    out = []
    for central in CENTRAL:
        if module == central.module:
            continue
        names, attrs = holders(tree, central)
        for line, target in _stores(tree):
            if _reaches(target, names, attrs):
                out.append(f"{module}:{line} changes a {central.cls}: {ast.unparse(target)}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and \
                not node.attr.startswith("__") and not _is_self(node.value):
            out.append(f"{module}:{node.lineno} private name of another object: {ast.unparse(node)}")
    return sorted(set(out))


def test_parts_change_central_objects_only_through_their_methods() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((SRC / package).rglob("*.py")):
            found += problems(path.read_text(encoding="utf-8"), path.relative_to(SRC).as_posix())
    assert not found, "give the part its own state and a method:\n" + "\n".join(found)


BAD = '''
from aiagent.frontends.tui.app import InteractiveApp

class Part:
    def __init__(self, owner: InteractiveApp, runtime) -> None:
        self.owner = owner
        self.runtime = runtime

    def poke(self, thing) -> None:
        self.owner.quit = True
        self.owner.blocks[0] = None
        self.owner.items.append("x")
        self.runtime.gate.approver = None
        thing._hidden = 1

def helper(screen: "InteractiveApp", rt) -> None:
    screen.typed += "x"
    setattr(screen, "quit", True)
    del rt.report
    rt._started
'''


def test_the_check_finds_each_kind_of_poke() -> None:
    found = problems(BAD, "frontends/tui/part.py")
    assert [p.split(" ", 1)[0].rsplit(":", 1)[1] for p in found] == \
        ["10", "11", "12", "13", "14", "17", "18", "19", "20"], found
    assert problems(BAD.replace("thing._hidden = 1", "pass").replace("rt._started", "rt"),
                    "frontends/tui/app.py") == [
        "frontends/tui/app.py:13 changes a SkillRuntime: self.runtime.gate.approver",
        "frontends/tui/app.py:19 changes a SkillRuntime: rt.report"]
