"""Reading and editing ``Package.swift`` without running it.

The manifest is Swift code, so it is never evaluated here: it is parsed with the
tree-sitter Swift grammar and only the literal shape SwiftPM's templates write is read or
edited: one ``Package(...)`` call whose ``dependencies:`` and ``targets:`` arguments are
array literals. Anything else (a parse error, ``#if`` inside the call, dependencies held in a
variable, ``package.dependencies`` changed later, string interpolation in a value we would
touch) is refused with one line saying why, and the file is left as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.infra.syntax.treesitter import parse

MAX_MANIFEST_BYTES = 1024 * 1024
SEMVER = r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.\-]+)?(?:\+[0-9A-Za-z.\-]+)?"
#: Version requirements a caller may give -> how they are written in the manifest.
REQUIREMENTS = [
    (re.compile(rf"^v?({SEMVER})$"), 'from: "{0}"'),
    (re.compile(rf'^(from|exact):\s*"?({SEMVER})"?$'), '{0}: "{1}"'),
    (re.compile(r'^branch:\s*"?([A-Za-z0-9._/\-]{1,100})"?$'), 'branch: "{0}"'),
    (re.compile(r'^revision:\s*"?([0-9a-fA-F]{7,40})"?$'), 'revision: "{0}"'),
    (re.compile(rf'^\.(upToNextMajor|upToNextMinor)\(from:\s*"({SEMVER})"\)$'), '.{0}(from: "{1}")'),
    (re.compile(rf'^\.exact\("({SEMVER})"\)$'), 'exact: "{0}"'),
    (re.compile(rf'^"?({SEMVER})"?\s*(\.\.<|\.\.\.)\s*"?({SEMVER})"?$'), '"{0}"{1}"{2}"'),
]
URL = re.compile(r"^(?:https?://|ssh://|git@)[A-Za-z0-9._~:/@%+\-]{3,300}$")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]{0,100}$")
TARGET_KINDS = {"target", "executableTarget", "testTarget", "macro", "plugin", "systemLibrary",
                "binaryTarget"}


class ManifestError(ValueError):
    """The manifest cannot be read or safely edited; one line naming the file."""


@dataclass(slots=True)
class Node:
    """What we use of a tree-sitter node: kind, byte span, text, children."""

    raw: Any

    @property
    def type(self) -> str:
        return str(self.raw.type)

    @property
    def start(self) -> int:
        return int(self.raw.start_byte)

    @property
    def end(self) -> int:
        return int(self.raw.end_byte)

    @property
    def text(self) -> str:
        return bytes(self.raw.text).decode("utf-8", "replace")

    def kids(self) -> list[Node]:
        return [Node(c) for c in self.raw.children]


class Manifest:
    """A parsed ``Package.swift`` and the spans of the parts we read or edit."""

    def __init__(self, path: Path, data: bytes) -> None:

        self.path, self.data = path, data
        tree = parse("swift", data)
        root = Node(tree.root_node)
        if tree.root_node.has_error:
            raise self.error(f"does not parse as Swift (near line {_first_error(tree.root_node)})")
        calls = [n for n in _walk(root) if n.type == "call_expression" and _callee(n) == "Package"]
        if len(calls) != 1:
            raise self.error(f"expected one Package(...) call, found {len(calls)}")
        self.call = calls[0]
        self.args = _arguments(self.call)

    def error(self, message: str) -> ManifestError:
        return ManifestError(f"{self.path.name}: {message}")

    def array(self, label: str, required: bool = True) -> Node | None:
        value = self.args.get(label)
        if value is None:
            if required:
                raise self.error(f"Package(...) has no {label}: argument")
            return None
        if value.type != "array_literal":
            raise self.error(f"{label}: is not a literal array [...] (it is {value.text[:40]!r}); "
                             "edit it by hand")
        return value

    def editable(self) -> None:
        if any("directive" in n.type for n in _walk(self.call)):
            raise self.error("Package(...) contains #if directives; edit it by hand")
        text = self.data.decode("utf-8", "replace")
        if re.search(r"\bpackage\s*\.\s*(dependencies|targets)\b", text):
            raise self.error("package.dependencies/targets are changed after Package(...); edit it by hand")

    def packages(self) -> list[dict[str, Any]]:
        deps = self.array("dependencies", required=False)
        return [_dependency(e) for e in _elements(deps)] if deps else []

    def targets(self) -> list[dict[str, Any]]:
        targets = self.array("targets", required=False)
        out = []
        for element in _elements(targets) if targets else []:
            kind = _member(element)
            args = _arguments(element)
            deps = args.get("dependencies")
            out.append({"kind": kind, "name": _string(args.get("name")),
                        "dependencies": [_dep_text(d) for d in _elements(deps)]
                        if deps is not None and deps.type == "array_literal" else []})
        return out

    def target(self, name: str) -> Node:
        targets = self.array("targets")
        assert targets is not None
        names = []
        for element in _elements(targets):
            target_name = _string(_arguments(element).get("name"))
            names.append(target_name or "?")
            if target_name == name and _member(element) in TARGET_KINDS:
                return element
        raise self.error(f"no target {name!r}; targets: {', '.join(names) or 'none'}")


def load(path: Path) -> Manifest:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ManifestError(f"{path}: cannot read: {err.strerror or err}") from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"{path.name}: larger than 1 MB; not a manifest this tool reads")
    return Manifest(path, data)


def summarize_manifest(path: Path) -> dict[str, Any]:
    """Name, tools version, platforms, products, dependencies and targets, or an error."""
    try:
        manifest = load(path)
    except ManifestError as err:
        return {"error": str(err)}
    first = manifest.data.split(b"\n", 1)[0].decode("utf-8", "replace")
    version = re.search(r"swift-tools-version\s*:\s*([0-9.]+)", first)
    platforms = manifest.args.get("platforms")
    products = manifest.args.get("products")
    return {
        "name": _string(manifest.args.get("name")),
        "tools_version": version.group(1) if version else None,
        "platforms": [e.text for e in _elements(platforms)] if platforms is not None else [],
        "products": [{"kind": _member(e), "name": _string(_arguments(e).get("name"))}
                     for e in _elements(products)] if products is not None else [],
        "dependencies": manifest.packages(),
        "targets": manifest.targets(),
    }


def requirement(version: str) -> str:
    """The Swift text of a version requirement, or ManifestError for anything else."""
    text = version.strip()
    for pattern, template in REQUIREMENTS:
        match = pattern.match(text)
        if match:
            return template.format(*match.groups())
    raise ManifestError(
        f"version {version!r} is not one of: 1.2.3, from: \"1.2.3\", exact: \"1.2.3\", "
        "branch: \"main\", revision: \"<sha>\", .upToNextMajor(from: \"1.2.3\"), "
        ".upToNextMinor(from: \"1.2.3\"), \"1.0.0\"..<\"2.0.0\"")


def identity(url: str) -> str:
    """SwiftPM's package identity of a URL: its last path part without ``.git``, lowercased."""
    return url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git").lower()


# -- the syntax tree ---------------------------------------------------------------------

_PUNCT = {"[", "]", ",", "(", ")", "comment", "multiline_comment"}


def _walk(node: Node) -> list[Node]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(current.kids()))
    return out


def _first_error(raw: Any) -> int:
    stack = [raw]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return int(node.start_point[0]) + 1
        stack.extend(reversed(node.children))
    return 1


def _callee(call: Node) -> str:
    head = call.kids()[0]
    return head.text if head.type == "simple_identifier" else ""


def _member(call: Node) -> str:
    """``.package(...)`` -> ``package``."""
    if call.type != "call_expression":
        return ""
    head = call.kids()[0]
    return head.text.lstrip(".").strip() if head.type == "prefix_expression" else ""


def _value_arguments(call: Node) -> Node | None:
    for kid in call.kids():
        if kid.type == "call_suffix":
            for part in kid.kids():
                if part.type == "value_arguments":
                    return part
    return None


def _arguments(call: Node) -> dict[str, Node]:
    """Labelled arguments of a call -> their value nodes (unlabelled ones as ``_0``, ...)."""
    out: dict[str, Node] = {}
    values = _value_arguments(call)
    for index, arg in enumerate(a for a in (values.kids() if values else []) if a.type == "value_argument"):
        label, value = None, None
        for kid in arg.kids():
            if kid.type == "value_argument_label":
                label = kid.text
            elif kid.type not in (":",) and not kid.type.endswith("comment"):
                value = kid
        if value is not None:
            out[label or f"_{index}"] = value
    return out


def _elements(array: Node | None) -> list[Node]:
    if array is None or array.type != "array_literal":
        return []
    return [k for k in array.kids() if k.type not in _PUNCT]


def _string(node: Node | None) -> str | None:
    if node is None or node.type != "line_string_literal":
        return None
    parts = [k for k in node.kids() if k.type != '"']
    if any(p.type != "line_str_text" for p in parts):
        return None  # interpolation or escapes: not a plain literal
    return "".join(p.text for p in parts)


def _dependency(element: Node) -> dict[str, Any]:
    args = _arguments(element)
    out: dict[str, Any] = {"text": " ".join(element.text.split())}
    for key in ("url", "path", "name", "id"):
        if _string(args.get(key)):
            out[key] = _string(args.get(key))
    if out.get("url"):
        out["identity"] = identity(out["url"])
    elif out.get("path"):
        out["identity"] = identity(out["path"])
    return out


def _dep_text(node: Node) -> str:
    return _string(node) or " ".join(node.text.split())
