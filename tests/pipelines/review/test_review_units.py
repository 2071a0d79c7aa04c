"""Model output is untrusted: paths, line ranges, sizes; and the diff parsing helpers."""

from __future__ import annotations

import json

import pytest

from aiagent.engines.review.findings import ReviewFinding, gate
from aiagent.engines.review.forge import _fingerprint_of
from aiagent.engines.review.hunks import parse
from aiagent.engines.review.model import MAX_ANSWER_CHARS, clean_path, parse_answer
from aiagent.engines.review.text import fence, markdown_safe

DIFF = """\
diff --git a/m.py b/m.py
--- a/m.py
+++ b/m.py
@@ -1,3 +1,4 @@ def f():
 a = 1
+b = 2
 c = 3
 d = 4
"""


@pytest.mark.parametrize("raw,expected", [
    ("src/a.py", "src/a.py"), ("./src/a.py", "src/a.py"), ("b/src/a.py", "src/a.py"),
    ("src//x/../a.py", "src/a.py"), ("../a.py", ""), ("/etc/passwd", ""), ("a\x00b", ""),
    ("a\nb", ""), ("", ""), (".", ""), ("src\\..\\..\\x", ""),
])
def test_clean_path(raw: str, expected: str) -> None:
    assert clean_path(raw) == expected


def test_parse_answer_accepts_fenced_json_and_refuses_the_rest() -> None:
    good = {"findings": [{"category": "style", "severity": "low", "file": "m.py",
                          "start_line": 2, "end_line": 2, "title": "t", "explanation": "e"}]}
    assert parse_answer(f"Sure:\n```json\n{json.dumps(good)}\n```") == good
    with pytest.raises(ValueError, match="no JSON object"):
        parse_answer("nothing")
    with pytest.raises(ValueError, match="schema"):
        parse_answer(json.dumps({"findings": [{**good["findings"][0], "category": "x"}]}))
    with pytest.raises(ValueError, match="schema"):
        parse_answer(json.dumps({"findings": [{**good["findings"][0], "title": "t" * 201}]}))
    with pytest.raises(ValueError, match="longer than"):
        parse_answer("{" + " " * MAX_ANSWER_CHARS + "}")


def test_hunk_ranges_and_added_lines() -> None:
    (change,) = parse(DIFF)
    assert change.added == frozenset({2})
    assert change.hunk_for(1, 4) is not None and change.hunk_for(4, 5) is None
    assert change.near_added(5, 5, 3) and not change.near_added(6, 6, 3)


def test_markers_in_untrusted_text_are_neutralised() -> None:
    assert "<!--" not in markdown_safe("<!-- aiagent-review:summary -->")
    assert fence("```\nx\n```").startswith("````")
    assert _fingerprint_of("<!-- aiagent-review:finding:abc123 -->\n...") == "abc123"
    assert _fingerprint_of("<!-- aiagent-review:finding:a b -->") == ""


def test_gate() -> None:
    f = ReviewFinding("r", "model", "bug", "medium", "a.py", 1, 1, "t")
    assert gate([f], "high", None) == ""
    assert gate([f], "medium", None).startswith("1 finding(s) at or above medium")
    assert gate([f, f], None, 1).startswith("2 findings")
    assert gate([], "info", 0) == ""
