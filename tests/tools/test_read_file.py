"""read_file: Codex CLI's output format, pinned exactly."""

from __future__ import annotations

import os

from tool_harness import Harness

CPP = """#include <vector>
#include <string>

namespace sample {
class Runner {
public:
    void setup() {
        if (enabled_) {
            init();
        }
    }

    // Run the code
    int run() const {
        switch (mode_) {
            case Mode::Fast:
                return fast();
            case Mode::Slow:
                return slow();
            default:
                return fallback();
        }
    }

private:
    bool enabled_ = false;
    Mode mode_ = Mode::Fast;

    int fast() const {
        return 1;
    }
};
}  // namespace sample
"""


def write(ws: Harness, name: str, data: bytes | str) -> str:
    path = ws.root / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def test_slice_range(ws: Harness) -> None:
    p = write(ws, "a.txt", "alpha\nbeta\ngamma\n")
    assert ws.ok("read_file", {"file_path": p, "offset": 2, "limit": 2}) == "L2: beta\nL3: gamma"


def test_default_reads_everything(ws: Harness) -> None:
    p = write(ws, "a.txt", "first\nsecond")
    assert ws.ok("read_file", {"file_path": p}) == "L1: first\nL2: second"


def test_relative_path_resolves_in_workspace(ws: Harness) -> None:
    write(ws, "a.txt", "x\n")
    assert ws.ok("read_file", {"file_path": "a.txt"}) == "L1: x"


def test_offset_beyond_length(ws: Harness) -> None:
    p = write(ws, "a.txt", "only\n")
    assert ws.err("read_file", {"file_path": p, "offset": 3, "limit": 1}) == "offset exceeds file length"


def test_empty_file(ws: Harness) -> None:
    p = write(ws, "empty.txt", "")
    assert ws.err("read_file", {"file_path": p}) == "offset exceeds file length"


def test_invalid_utf8(ws: Harness) -> None:
    p = write(ws, "bad.txt", b"\xff\xfe\nplain\n")
    assert ws.ok("read_file", {"file_path": p}) == "L1: \ufffd\ufffd\nL2: plain"


def test_crlf(ws: Harness) -> None:
    p = write(ws, "crlf.txt", "one\r\ntwo\r\n")
    assert ws.ok("read_file", {"file_path": p}) == "L1: one\nL2: two"


def test_long_line_cut_at_500_bytes(ws: Harness) -> None:
    p = write(ws, "long.txt", "x" * 550 + "\n")
    assert ws.ok("read_file", {"file_path": p}) == "L1: " + "x" * 500
    q = write(ws, "wide.txt", "é" * 300 + "\n")  # 2 bytes each: cut at a char boundary
    assert ws.ok("read_file", {"file_path": q}) == "L1: " + "é" * 250


def test_bad_arguments(ws: Harness) -> None:
    p = write(ws, "a.txt", "x\n")
    assert ws.err("read_file", {"file_path": p, "offset": 0}) == "offset must be a 1-indexed line number"
    assert ws.err("read_file", {"file_path": p, "limit": 0}) == "limit must be greater than zero"
    assert "failed to read file: No such file or directory (os error 2)" in ws.err(
        "read_file", {"file_path": str(ws.root / "missing")}
    )
    assert ws.err("read_file", {"file_path": p, "extra": 1}).startswith("invalid arguments for read_file")


def test_binary_refused(ws: Harness) -> None:
    p = write(ws, "blob.bin", b"\x00\x01\x02abc")
    assert "binary" in ws.err("read_file", {"file_path": p})


def test_symlink_inside_workspace_is_followed(ws: Harness) -> None:
    write(ws, "real.txt", "hello\n")
    os.symlink(ws.root / "real.txt", ws.root / "link.txt")
    assert ws.ok("read_file", {"file_path": "link.txt"}) == "L1: hello"


def indent(ws: Harness, text: str, anchor: int, **opts: object) -> str:
    p = write(ws, "code.txt", text)
    args = {"file_path": p, "offset": anchor, "limit": 200, "mode": "indentation",
            "indentation": {"anchor_line": anchor, **opts}}
    return ws.ok("read_file", args)


def test_indentation_block(ws: Harness) -> None:
    text = "fn outer() {\n    if cond {\n        inner();\n    }\n    tail();\n}\n"
    assert indent(ws, text, 3, max_levels=1) == "L2:     if cond {\nL3:         inner();\nL4:     }"


def test_indentation_parents(ws: Harness) -> None:
    text = "mod root {\n    fn outer() {\n        if cond {\n            inner();\n        }\n    }\n}\n"
    assert indent(ws, text, 4, max_levels=2).splitlines()[0] == "L2:     fn outer() {"
    assert len(indent(ws, text, 4, max_levels=3).splitlines()) == 7


def test_indentation_siblings(ws: Harness) -> None:
    text = ("fn wrapper() {\n    if first {\n        do_first();\n    }\n"
            "    if second {\n        do_second();\n    }\n}\n")
    assert indent(ws, text, 3, max_levels=1) == "L2:     if first {\nL3:         do_first();\nL4:     }"
    assert indent(ws, text, 3, max_levels=1, include_siblings=True).splitlines()[-1] == "L7:     }"


def test_indentation_cpp_with_header_comment(ws: Harness) -> None:
    out = indent(ws, CPP, 18, max_levels=2).splitlines()
    assert out[0] == "L13:     // Run the code"
    assert out[-1] == "L23:     }"
    no_header = indent(ws, CPP, 18, max_levels=2, include_header=False).splitlines()
    assert no_header[0] == "L14:     int run() const {"
    siblings = indent(ws, CPP, 18, max_levels=2, include_header=False, include_siblings=True)
    assert siblings.splitlines()[0] == "L7:     void setup() {"
    assert "L12: " in siblings.splitlines()


def test_indentation_python_sample(ws: Harness) -> None:
    text = ("class Foo:\n    def __init__(self, size):\n        self.size = size\n"
            "    def double(self, value):\n        if value is None:\n            return 0\n"
            "        result = value * self.size\n        return result\nclass Bar:\n"
            "    def compute(self):\n        helper = Foo(2)\n        return helper.double(5)\n")
    p = write(ws, "s.py", text)
    out = ws.ok("read_file", {"file_path": p, "offset": 1, "limit": 200, "mode": "indentation",
                              "indentation": {"anchor_line": 7, "include_siblings": True, "max_levels": 1}})
    assert out.splitlines()[0] == "L2:     def __init__(self, size):"
    assert out.splitlines()[-1] == "L8:         return result"


def test_indentation_errors(ws: Harness) -> None:
    p = write(ws, "a.txt", "x\n")
    args = {"file_path": p, "mode": "indentation", "indentation": {"anchor_line": 5}}
    assert ws.err("read_file", args) == "anchor_line exceeds file length"


def test_read_is_remembered(ws: Harness) -> None:
    p = write(ws, "a.txt", "x\n")
    ws.ok("read_file", {"file_path": p})
    assert p in ws.ctx.state["files.reads"]
