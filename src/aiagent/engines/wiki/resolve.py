"""Imports as written → project files, per language (what cannot be resolved is external)."""

from __future__ import annotations

import posixpath

from aiagent.engines.wiki.model import CodeModel, FileModel

JS_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", "/index.js", "/index.ts", "/index.tsx")
JS_LANGUAGES = ("javascript", "typescript", "tsx")


def resolve_imports(model: CodeModel) -> None:
    modules = python_modules(model)
    folders: dict[str, list[str]] = {}
    for rel in model.files:
        folders.setdefault(posixpath.dirname(rel), []).append(rel)
    for fm in model.files.values():
        if fm.language == "python":
            targets = [_python(fm, name, modules) for name in fm.imports]
        elif fm.language in JS_LANGUAGES:
            targets = [_js(fm, name, model) for name in fm.imports]
        else:
            targets = [_by_path(name, fm, folders, model) for name in fm.imports]
        fm.resolved = {t for t in targets if t and t != fm.rel}


def python_modules(model: CodeModel) -> dict[str, str]:
    """Dotted module name -> file, from the folders that hold packages (``src/`` layouts too)."""
    modules: dict[str, str] = {}
    # a project that is itself a package: its files are also named with its folder's name
    prefix = [model.root.name] if (model.root / "__init__.py").is_file() else []
    for rel, fm in model.files.items():
        if fm.language != "python":
            continue
        parts = rel[: -len(".pyi") if rel.endswith(".pyi") else -3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        parts = prefix + parts
        for start in range(len(parts)):
            name = ".".join(parts[start:])
            if name and name not in modules:
                modules[name] = rel
    return modules


def python_package(fm: FileModel) -> list[str]:
    parts = fm.rel.split("/")[:-1]
    return parts


def _python(fm: FileModel, name: str, modules: dict[str, str]) -> str:
    if name.startswith("."):
        dots = len(name) - len(name.lstrip("."))
        base = python_package(fm)
        base = base[: len(base) - (dots - 1)] if dots > 1 else base
        rest = name.lstrip(".")
        path = "/".join(base + rest.split(".")) if rest else "/".join(base)
        for candidate in (f"{path}.py", f"{path}/__init__.py", f"{path}.pyi"):
            if candidate in modules.values():
                return candidate
        return ""
    return modules.get(name, "")


def _js(fm: FileModel, name: str, model: CodeModel) -> str:
    if not name.startswith("."):
        return ""
    base = posixpath.normpath(posixpath.join(posixpath.dirname(fm.rel), name))
    for suffix in JS_SUFFIXES:
        if base + suffix in model.files:
            return base + suffix
    return ""


def _by_path(name: str, fm: FileModel, folders: dict[str, list[str]], model: CodeModel) -> str:
    """Go packages by folder suffix; Java/Kotlin/C# qualified names by file path suffix."""
    if fm.language == "go":
        for folder, rels in folders.items():
            if folder and (name == folder or name.endswith("/" + folder)):
                return sorted(rels)[0]
        return ""
    path = name.replace(".", "/")
    for rel in model.files:
        stem = rel.rsplit(".", 1)[0]
        if stem.endswith("/" + path) or stem == path:
            return rel
    return ""
