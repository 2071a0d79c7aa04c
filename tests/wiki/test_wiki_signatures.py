"""Signatures on the pages stop where the body starts: no comment of the body (nor one
beside a parameter) is part of them, in Python and in the tree-sitter languages."""

from __future__ import annotations

from pathlib import Path


def test_signatures_leave_out_comments(tmp_path: Path) -> None:
    from aiagent.engines.wiki.model import build_model
    from aiagent.engines.wiki.scan import scan
    from aiagent.engines.wiki.steering import load_steering

    (tmp_path / "m.py").write_text("def f(a,  # the a\n      b):  # first comment of the body\n    return a\n\n"
                                   "class K:  # note\n    def g(self) -> int:\n        # body\n        return 1\n")
    (tmp_path / "w.js").write_text("export function h(x) { // first comment\n  return x;\n}\n"
                                   "function k(a,\n  b) {\n  /* c */ return a;\n}\n")
    model = build_model(scan(tmp_path, load_steering(tmp_path)))
    got = {s.qualname: s.signature for s in model.symbols()}
    assert got == {"f": "def f(a, b)", "K": "class K", "K.g": "def g(self) -> int",
                   "h": "function h(x)", "k": "function k(a, b)"}
