"""Truthfulness: the code names the model writes in backticks are checked against the code
model, ``file:line`` references must name a project file and a line inside it, and the
model's prose is written into pages as inert Markdown.

``unknown(text)`` lists the back-quoted names the code model does not know; ``drop`` removes
the sentences (or list items) that still hold one after the re-ask; ``render`` turns checked
prose into Markdown: text escaped (no HTML, links, images or emphasis of the model's own),
known names as code spans, ``file:line`` as links the wiki builds itself (the model never
chooses a path).
"""

from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass, field

from aiagent.engines.wiki.model import CodeModel
from aiagent.engines.wiki.pages import Links, cell, code

SPAN = re.compile(r"`([^`\n]{1,200})`")
NAME = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?")
PATHLIKE = re.compile(r"[\w./-]+\.\w+(?::(\d+)(?:-\d+)?)?|[\w./-]+/")
SENTENCE = re.compile(r"(?<=[.!?])\s+")
OTHER_WORDS = {"null", "true", "false", "nil", "undefined", "this", "self", "cls", "string", "int",
               "bool", "void", "async", "await", "fn", "func", "var", "let", "const", "new", "main",
               "init", "__init__", "__main__", "stdin", "stdout", "stderr", "JSON", "HTTP", "YAML",
               "TOML", "SQL", "API", "CLI", "README"}


@dataclass(slots=True)
class Names:
    """Every name the code model knows: symbols (plain and qualified), files, folders,
    modules, imports as written."""

    model: CodeModel
    symbols: set[str] = field(default_factory=set)
    files: dict[str, int] = field(default_factory=dict)  # rel -> lines (0: not a source file)
    words: set[str] = field(default_factory=set)  # imports, builtins, parameters: not checked deeper
    local: set[str] = field(default_factory=set)  # the project's own top-level names

    @classmethod
    def of(cls, model: CodeModel, modules: list[str]) -> Names:
        names = cls(model)
        for s in model.symbols():
            names.symbols.update((s.name, s.qualname))
            names.words.update(re.findall(r"[A-Za-z_]\w*", s.signature))
        for rel, fm in model.files.items():
            names.files[rel] = fm.lines
            names.words.update(fm.imports)
            names.words.update(p for imp in fm.imports for p in re.split(r"[./:]", imp) if p)
            stem = rel.rsplit(".", 1)[0]
            names.words.update((stem.replace("/", "."), stem.rsplit("/", 1)[-1]))
            names.words.update(part for part in rel.split("/")[:-1])
            names.local.update((rel.split("/")[0].rsplit(".", 1)[0], stem.rsplit("/", 1)[-1]))
        for other in (*model.build, *model.config, *model.docs):
            names.files.setdefault(other.rel, 0)
        names.words.update(modules)
        names.words.update((*keyword.kwlist, *dir(builtins)))
        names.words.update(OTHER_WORDS)
        return names

    def known(self, span: str) -> bool:
        """False only for an identifier or path-like span the code model does not know;
        anything else in backticks (a literal, a flag, an expression) is not a name."""
        text = span.strip()
        if PATHLIKE.fullmatch(text) and ("/" in text or ":" in text or "." in text.lstrip(".")):
            if self.reference(text) is not None:
                return True
            if NAME.fullmatch(text) is None:
                return False
        if NAME.fullmatch(text) is None:
            return True
        name = text.removesuffix("()").replace("::", ".").replace("#", ".")
        if name in self.symbols or name in self.words:
            return True
        parts = name.split(".")
        if parts[0] in self.local or parts[0] in self.symbols:  # ours: the rest must be ours too
            return any(".".join(parts[i:]) in self.symbols for i in range(1, len(parts)))
        return parts[0] in self.words  # a library's name: not ours to check

    def reference(self, text: str) -> tuple[str, int] | None:
        """``rel`` or ``rel:line`` naming a project file (and a line inside it)."""
        path, _, rest = text.partition(":")
        path = path.removeprefix("./")
        if path not in self.files:
            return None
        line = int(rest.split("-")[0]) if rest[:1].isdigit() else 0
        if rest and not rest[:1].isdigit():
            return None
        lines = self.files[path]
        if line and (line < 1 or (lines and line > lines)):
            return None
        return path, line


def unknown(names: Names, text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in SPAN.finditer(text) if not names.known(m.group(1))))


def drop(names: Names, text: str) -> tuple[str, int]:
    """``text`` without its sentences that name something unknown, and how many names went."""
    kept, gone = [], 0
    for paragraph in text.split("\n\n"):
        sentences = []
        for sentence in SENTENCE.split(paragraph):
            bad = unknown(names, sentence)
            gone += len(bad)
            if not bad:
                sentences.append(sentence)
        if sentences:
            kept.append(" ".join(sentences))
    return "\n\n".join(kept), gone


def render(names: Names, links: Links, page: str, text: str) -> str:
    """Checked prose as inert Markdown paragraphs (see the module docstring)."""
    out = []
    for paragraph in text.split("\n\n"):
        parts = re.split(r"(`[^`\n]{1,200}`)", paragraph)
        rendered = "".join(_span(names, links, page, p[1:-1]) if i % 2 else _plain(p)
                           for i, p in enumerate(parts))
        if rendered.strip():
            out.append(rendered.strip())
    return "\n\n".join(out)


def _plain(text: str) -> str:
    if not text.strip():
        return " " if text else ""
    lead, trail = " " * text[:1].isspace(), " " * text[-1:].isspace()
    escaped = cell(text).replace("#", "\\#").replace("~", "\\~")
    return lead + escaped + trail


def _span(names: Names, links: Links, page: str, span: str) -> str:
    ref = names.reference(span.strip())
    if ref is not None:
        rel, line = ref
        label = f"{rel}:{line}" if line else rel
        return f"[{cell(label)}]({links.source(page, rel, line)})"
    return code(span)
