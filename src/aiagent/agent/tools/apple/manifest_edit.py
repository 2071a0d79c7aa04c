"""Targeted edits of ``Package.swift``: add or remove a package dependency (and a target's
use of one of its products). Each edit inserts or deletes text at spans found by
:mod:`aiagent.agent.tools.apple.manifest`; the result is parsed again and must show the change,
else nothing is written."""

from __future__ import annotations

from pathlib import Path

from aiagent.agent.tools.apple.manifest import (
    NAME,
    URL,
    Manifest,
    ManifestError,
    Node,
    _arguments,
    _elements,
    _member,
    _string,
    identity,
    requirement,
)

Edit = tuple[int, int, str]  # replace data[start:end] with text


def add_dependency(path: Path, data: bytes, url: str, version: str,
                   target: str | None = None, product: str | None = None) -> bytes:
    if not URL.match(url):
        raise ManifestError(f"url {url!r} is not a git URL (https://…, ssh://… or git@host:path)")
    req = requirement(version)
    if target is not None and (product is None or not NAME.match(product)):
        raise ManifestError("product: give the library product name the package exports "
                            "(e.g. Logging for swift-log) to add it to a target")
    manifest = Manifest(path, data)
    manifest.editable()
    ident = identity(url)
    for dep in manifest.packages():
        if dep.get("identity") == ident:
            raise ManifestError(f"{path.name}: already depends on {ident}: {dep['text']}")
    edits = [_add_package(manifest, f'.package(url: "{url}", {req})')]
    if target is not None:
        edits.append(_add_to_target(manifest, target, f'.product(name: "{product}", package: "{ident}")'))
    new = _apply(data, edits)
    check = Manifest(path, new)
    if not any(d.get("identity") == ident for d in check.packages()):
        raise ManifestError(f"{path.name}: the edit did not produce the dependency; nothing written")
    return new


def remove_dependency(path: Path, data: bytes, which: str) -> bytes:
    """Remove the package ``which`` (its URL or identity) and every ``.product(..., package:)``
    of it in the targets."""
    manifest = Manifest(path, data)
    manifest.editable()
    ident = identity(which) if "/" in which or ":" in which else which.lower()
    deps = manifest.array("dependencies")
    matches = [e for e in _elements(deps) if _identity_of(e) == ident]
    if not matches:
        known = ", ".join(d.get("identity", d["text"]) for d in manifest.packages()) or "none"
        raise ManifestError(f"{path.name}: no dependency {which!r}; dependencies: {known}")
    edits = [_remove(data, deps, e) for e in matches if deps is not None]
    targets = manifest.array("targets", required=False)
    for target in _elements(targets):
        uses = _arguments(target).get("dependencies")
        for use in _elements(uses):
            if _member(use) == "product" and (_string(_arguments(use).get("package")) or "").lower() == ident:
                assert uses is not None
                edits.append(_remove(data, uses, use))
    new = _apply(data, edits)
    if any(d.get("identity") == ident for d in Manifest(path, new).packages()):
        raise ManifestError(f"{path.name}: the edit did not remove {ident}; nothing written")
    return new


def _identity_of(element: Node) -> str | None:
    args = _arguments(element)
    for key in ("url", "path"):
        value = _string(args.get(key))
        if value:
            return identity(value)
    name = _string(args.get("name")) or _string(args.get("id"))
    return name.lower() if name else None


def _add_package(manifest: Manifest, element: str) -> Edit:
    deps = manifest.array("dependencies", required=False)
    if deps is not None:
        return _append(manifest.data, deps, element)
    targets = manifest.args.get("targets")
    if targets is None:
        raise manifest.error("Package(...) has neither dependencies: nor targets:; edit it by hand")
    arg_start = _label_start(manifest.data, targets.start)
    indent = _indent(manifest.data, arg_start)
    text = f"dependencies: [\n{indent}    {element},\n{indent}],\n{indent}"
    return (arg_start, arg_start, text)


def _add_to_target(manifest: Manifest, name: str, element: str) -> Edit:
    target = manifest.target(name)
    args = _arguments(target)
    uses = args.get("dependencies")
    if uses is not None:
        if uses.type != "array_literal":
            raise manifest.error(f"target {name}: dependencies: is not a literal array; edit it by hand")
        for use in _elements(uses):
            if " ".join(use.text.split()) == element:
                raise manifest.error(f"target {name} already uses {element}")
        return _append(manifest.data, uses, element)
    name_value = args["name"]
    return (name_value.end, name_value.end, f", dependencies: [{element}]")


def _append(data: bytes, array: Node, element: str) -> Edit:
    """Insert ``element`` as the last element of ``array``, in the array's own layout."""
    items = _elements(array)
    kids = array.kids()
    close = kids[-1].start
    if not items:
        if data[array.start + 1:close].strip():
            return (array.start + 1, array.start + 1, f"{element}, ")
        if b"\n" in data[array.start:close]:
            indent = _indent(data, array.start)
            return (array.start + 1, close, f"\n{indent}    {element},\n{indent}")
        return (array.start + 1, close, element)
    last = items[-1]
    comma = next((k for k in kids if k.type == "," and k.start >= last.end), None)
    if b"\n" not in data[last.end:close]:  # the closing bracket is on the last element's line
        return ((comma.end, comma.end, f" {element},") if comma else (last.end, last.end, f", {element}"))
    line_end = data.index(b"\n", last.end)
    indent = _indent(data, last.start)
    if comma is not None:
        return (line_end, line_end, f"\n{indent}{element},")
    return (last.end, last.end, f",\n{indent}{element}")


def _remove(data: bytes, array: Node, element: Node) -> Edit:
    kids = array.kids()
    comma = next((k for k in kids if k.type == "," and k.start >= element.end), None)
    following = _next_item(_elements(array), element)
    end = comma.end if comma is not None and (following is None or comma.end <= following.start) \
        else element.end
    comma = comma if end == getattr(comma, "end", -1) else None
    start = element.start
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", end)
    line_end = len(data) if line_end < 0 else line_end
    rest = data[end:line_end].strip()
    if not data[line_start:start].strip() and (not rest or rest.startswith(b"//")):
        return (line_start, min(line_end + 1, len(data)), "")
    if comma is None:  # the last element with no comma after it: drop the comma before it
        before = [k for k in kids if k.type == "," and k.end <= start]
        if before:
            return (before[-1].start, element.end, "")
    while end < len(data) and data[end:end + 1] == b" ":
        end += 1
    return (start, end, "")


def _next_item(items: list[Node], element: Node) -> Node | None:
    later = [i for i in items if i.start > element.start]
    return later[0] if later else None


def _label_start(data: bytes, value_start: int) -> int:
    """Where the ``label:`` before a value starts."""
    colon = data.rindex(b":", 0, value_start)
    start = colon
    while start > 0 and (chr(data[start - 1]).isalnum() or data[start - 1:start] == b"_"):
        start -= 1
    return start


def _indent(data: bytes, offset: int) -> str:
    line_start = data.rfind(b"\n", 0, offset) + 1
    prefix = data[line_start:offset]
    return prefix[: len(prefix) - len(prefix.lstrip())].decode()


def _apply(data: bytes, edits: list[Edit]) -> bytes:
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        data = data[:start] + text.encode() + data[end:]
    return data
