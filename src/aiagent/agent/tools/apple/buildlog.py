"""The ``xcodebuild`` log parser: raw output in, structure the model can act on out.

Fed line by line (or in raw chunks) while the build runs, it keeps only what matters:
compiler errors and warnings (file, line, column, message, notes and fix-its), linker
errors (undefined symbols with the objects that reference them, duplicate symbols, a
framework or library not found), code-signing errors (no profile, no identity, no team,
an entitlement the profile lacks), test results (XCTest and Swift Testing, Xcode 15 and
16 styles), the failed build commands and the final verdict. Memory and time stay
bounded: lines are cut at :data:`MAX_LINE` characters and every list at a cap; what was
cut is counted in ``cut``. The patterns are data (``buildlog.toml``).
"""

from __future__ import annotations

import codecs
import re
import tomllib
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

MAX_LINE = 4096
CAPS = {"errors": 100, "warnings": 100, "tests": 500, "failed_commands": 50, "destinations": 20,
        "objects": 10}
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@cache
def patterns() -> dict[str, re.Pattern[str]]:
    text = resources.files("aiagent.agent.tools.apple").joinpath("buildlog.toml").read_text("utf-8")
    return {name: re.compile(rx) for name, rx in tomllib.loads(text)["patterns"].items()}


@cache
def signing_kinds() -> list[tuple[str, re.Pattern[str], str]]:
    text = resources.files("aiagent.agent.tools.apple").joinpath("buildlog.toml").read_text("utf-8")
    return [(k["kind"], re.compile(k["match"], re.I), k["hint"]) for k in tomllib.loads(text)["signing"]]


@dataclass(slots=True)
class Diagnostic:
    severity: str  # error | warning
    message: str
    kind: str = "compiler"  # compiler | linker | signing | build | usage
    file: str | None = None
    line: int | None = None
    column: int | None = None
    target: str | None = None
    notes: list[str] = field(default_factory=list)
    fixits: list[str] = field(default_factory=list)
    symbol: str | None = None  # linker: the symbol or framework
    referenced_from: list[str] = field(default_factory=list)
    hint: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, [], "")}


@dataclass(slots=True)
class TestCase:
    suite: str | None
    name: str
    status: str  # passed | failed | skipped
    duration: float | None = None
    message: str | None = None
    file: str | None = None
    line: int | None = None
    style: str = "xctest"  # xctest | swift-testing

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(slots=True)
class _Issue:
    message: str
    file: str | None
    line: int | None


class BuildLog:
    """Feed lines with :meth:`feed` (or bytes with :meth:`feed_bytes`); read :meth:`report`."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = str(root).rstrip("/") + "/" if root else None
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.tests: dict[tuple[str | None, str], TestCase] = {}
        self.failed_commands: list[str] = []
        self.destinations: list[str] = []
        self.failing_tests: list[str] = []
        self.verdicts: list[str] = []
        self.totals: dict[str, Any] = {}
        self.cut: dict[str, int] = {}
        self.lines = 0
        self._seen: set[tuple[Any, ...]] = set()
        self._last: Diagnostic | None = None
        self._after_caret = False
        self._target: str | None = None
        self._block: str | None = None  # undefined | duplicate | failed_commands | destinations | failing
        self._issues: dict[str, list[_Issue]] = {}
        self._partial = ""
        self._note: str | None = None
        self._current_link: Diagnostic | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    # ---- input -------------------------------------------------------------------------

    def feed_bytes(self, data: bytes, final: bool = False) -> None:
        text = self._partial + self._decoder.decode(data, final)
        lines = text.split("\n")
        self._partial = lines.pop()
        if len(self._partial) > MAX_LINE:  # an endless line: keep its start only
            self._partial = self._partial[:MAX_LINE]
        for line in lines:
            self.feed(line)
        if final and self._partial:
            self.feed(self._partial)
            self._partial = ""

    def feed(self, raw: str) -> None:
        self.lines += 1
        line = ANSI.sub("", raw[:MAX_LINE]).rstrip("\r\n")
        if self._block and self._in_block(line):
            return
        for step in (self._diagnostic, self._linker, self._xctest, self._swift_testing, self._markers):
            if step(line):
                return
        self._context(line)

    # ---- compiler and tool diagnostics -------------------------------------------------

    def _diagnostic(self, line: str) -> bool:
        p = patterns()
        m = p["located"].match(line)
        if m:
            if self._xctest_issue(m):
                return True
            self._add(m["severity"], m["message"], file=m["file"], line=int(m["line"]),
                      column=int(m["column"]) if m["column"] else None)
            return True
        m = p["file_only"].match(line) or p["unlocated"].match(line)
        if m is None:
            return False
        if m["message"].startswith(("linker command failed", "symbol(s) not found")):
            return True  # the linker's own summary of what it already said
        file = m.groupdict().get("file")
        self._add(m["severity"], m["message"], file=file, tool=m.groupdict().get("tool"))
        return True

    def _add(self, severity: str, message: str, *, file: str | None = None, line: int | None = None,
             column: int | None = None, tool: str | None = None) -> None:
        message, target = _split_target(message)
        if severity.lower() == "note":
            if self._last is not None:
                _bounded_append(self._last.notes, message, 10)
                self._after_caret = False
                self._note = message
            return
        severity = "error" if severity.lower() in ("error", "fatal error") else "warning"
        diag = Diagnostic(severity, message, file=self._rel(file), line=line, column=column,
                          target=target or self._target)
        self._classify(diag, tool)
        key = (severity, diag.file, line, column, message)
        self._last, self._note, self._after_caret = diag, None, False
        if key in self._seen:
            self._last = None  # xcodebuild repeats some diagnostics: keep the first
            return
        self._seen.add(key)
        self._keep(self.errors if severity == "error" else self.warnings, diag, "errors" if severity == "error" else "warnings")

    def _classify(self, diag: Diagnostic, tool: str | None) -> None:
        for kind, rx, hint in signing_kinds():
            m = rx.search(diag.message)
            if m:
                diag.kind, diag.hint = "signing", f"{kind}: {hint}"
                return
        if tool == "ld":
            diag.kind = "linker"
        elif tool == "xcodebuild":
            diag.kind = "usage" if diag.severity == "error" else "build"
            if "Unable to find a destination" in diag.message:
                self._block = "destinations"
        elif diag.file is None or diag.line is None:
            diag.kind = "build"

    def _context(self, line: str) -> None:
        """Lines under a diagnostic: the source line, the caret line, then a fix-it's text."""
        if self._last is None or not line.strip():
            self._after_caret = False
            return
        if patterns()["caret"].match(line):
            self._after_caret = True
            return
        if patterns()["snippet"].match(line):
            return
        if self._after_caret and not patterns()["step"].match(line):
            fix = line.strip()
            note = self._note
            _bounded_append(self._last.fixits, f"{note}: {fix}" if note else fix, 10)
            self._after_caret = False

    # ---- linker ------------------------------------------------------------------------

    def _linker(self, line: str) -> bool:
        p = patterns()
        if p["undefined_start"].match(line):
            self._block = "undefined"
            return True
        m = p["duplicate"].match(line)
        if m:
            diag = self._link_error(f"duplicate symbol {m['symbol']}", m["symbol"])
            self._block = "duplicate" if diag else None
            return True
        for what in ("framework", "library"):
            m = p[f"{what}_missing"].match(line) or p[f"{what}_missing_ld_prime"].match(line)
            if m:
                self._link_error(f"{what} not found: {m['name']}", m["name"])
                return True
        return False

    def _link_error(self, message: str, symbol: str) -> Diagnostic | None:
        diag = Diagnostic("error", message, kind="linker", symbol=symbol, target=self._target)
        key = ("link", message)
        if key in self._seen:
            return None
        self._seen.add(key)
        self._last = None
        return diag if self._keep(self.errors, diag, "errors") else None

    def _in_block(self, line: str) -> bool:
        block = self._block
        p = patterns()
        if block == "undefined":
            m = p["undefined_symbol"].match(line)
            if m:
                diag = self._link_error(f"undefined symbol {m['symbol']}", m["symbol"])
                self._current_link = diag
                return True
            m = p["referenced_by"].match(line)
            if m and self._current_link is not None:
                _bounded_append(self._current_link.referenced_from, m["object"], CAPS["objects"])
                return True
        elif block == "duplicate":
            m = p["object_path"].match(line)
            if m and self.errors and self.errors[-1].kind == "linker":
                _bounded_append(self.errors[-1].referenced_from, self._rel(m["path"]) or m["path"], CAPS["objects"])
                return True
        elif block in ("failed_commands", "failing"):
            if line.startswith(("\t", "    ")) and line.strip():
                if block == "failed_commands":
                    _bounded_append(self.failed_commands, line.strip(), CAPS["failed_commands"])
                else:
                    _bounded_append(self.failing_tests, line.strip(), CAPS["tests"])
                return True
        elif block == "destinations":
            if line.strip().startswith("Available destinations"):
                self._block = "available"
            return True
        elif block == "available":
            m = p["destination"].match(line)
            if m:
                _bounded_append(self.destinations, m["spec"].strip(), CAPS["destinations"])
                return True
            if line.strip() and not line.lstrip().startswith(("{", "Ineligible")):
                self._block = None
                return False
            return True
        self._block = None
        self._current_link = None
        return False

    # ---- tests -------------------------------------------------------------------------

    def _xctest_issue(self, m: re.Match[str]) -> bool:
        t = patterns()["xctest_issue"].match(m["message"])
        if t is None:
            return False
        key = f"{t['cls']}/{t['name']}"
        issues = self._issues.setdefault(key, [])
        _bounded_append(issues, _Issue(t["text"], self._rel(m["file"]), int(m["line"])), 10)
        return True

    def _xctest(self, line: str) -> bool:
        p = patterns()
        m = p["xctest_case"].match(line)
        if m:
            cls, name = m["cls"], m["name"]
            self._case(cls.rsplit(".", 1)[-1], name, m["status"], float(m["duration"]), f"{cls}/{name}")
            return True
        m = p["xctest_skip"].match(line)
        if m:
            key = f"{m['cls']}/{m['name']}"
            text = f"skipped: {m['text']}" if m["text"] else "skipped"
            self._issues.setdefault(key, []).append(_Issue(text, self._rel(m["file"]), int(m["line"])))
            return True
        m = p["parallel_case"].match(line)
        if m:
            suite, _, name = m["full"].rpartition(".")
            self._case(suite or None, name, m["status"], float(m["duration"]), m["full"].replace(".", "/", 1))
            return True
        m = p["executed"].match(line)
        if m:
            self.totals["xctest"] = {"executed": int(m["count"]), "failures": int(m["failures"]),
                                     "duration": float(m["duration"])}
            return True
        if p["suite_line"].match(line):
            return True
        if line.strip() == "Failing tests:":
            self._block = "failing"
            return True
        return False

    def _swift_testing(self, line: str) -> bool:
        p = patterns()
        m = p["st_issue"].match(line)
        if m:
            issues = self._issues.setdefault(f"st/{m['name']}", [])
            _bounded_append(issues, _Issue(m["text"], m["file"], int(m["line"])), 10)
            return True
        m = p["st_run"].match(line)
        if m:
            self.totals["swift-testing"] = {"executed": int(m["count"]), "status": m["status"],
                                            "duration": float(m["duration"]),
                                            "issues": int(m["issues"] or 0)}
            return True
        m = p["st_result"].match(line)
        if m:
            self._case(None, m["name"].strip('"'), m["status"], float(m["duration"]), f"st/{m['name']}", "swift-testing")
            return True
        m = p["st_skipped"].match(line)
        if m:
            self._case(None, m["name"].strip('"'), "skipped", None, f"st/{m['name']}", "swift-testing",
                       reason=(m["reason"] or "").strip().strip('"') or None)
            return True
        return bool(p["st_other"].match(line))

    def _case(self, suite: str | None, name: str, status: str, duration: float | None, key: str,
              style: str = "xctest", reason: str | None = None) -> None:
        issues = self._take_issues(key, suite, name)
        first = issues[0] if issues else None
        message = "; ".join(i.message for i in issues) if issues else reason
        case = TestCase(suite, name, status, duration, message, first.file if first else None,
                        first.line if first else None, style)
        ident = (suite, name)
        if ident not in self.tests and len(self.tests) >= CAPS["tests"]:
            self.cut["tests"] = self.cut.get("tests", 0) + 1
            self._count_cut(case)
            return
        self.tests[ident] = case

    def _take_issues(self, key: str, suite: str | None, name: str) -> list[_Issue]:
        """The issues logged for a case; a parallel run's case line names ``Suite.test()``
        while its issue line names ``-[Module.Suite test]``."""
        if key in self._issues:
            return self._issues.pop(key)
        bare = name.removesuffix("()")
        for known in list(self._issues):
            if suite and known.endswith((f".{suite}/{bare}", f"{suite}/{bare}")) and known.startswith(("", )):
                return self._issues.pop(known)
        return []

    def _count_cut(self, case: TestCase) -> None:
        bucket = self.totals.setdefault("cut_cases", {"passed": 0, "failed": 0, "skipped": 0})
        bucket[case.status] += 1

    # ---- markers -----------------------------------------------------------------------

    def _markers(self, line: str) -> bool:
        p = patterns()
        m = p["verdict"].match(line)
        if m:
            self.verdicts.append(m["verdict"])
            return True
        if line.startswith("The following build commands failed:"):
            self._block = "failed_commands"
            return True
        m = p["step"].match(line)
        if m and m["target"]:
            self._target = m["target"]
            self._last = None
            return True
        return False

    # ---- output ------------------------------------------------------------------------

    def _keep(self, items: list[Any], item: Any, cap_name: str) -> bool:
        if len(items) >= CAPS[cap_name]:
            self.cut[cap_name] = self.cut.get(cap_name, 0) + 1
            return False
        items.append(item)
        return True

    def _rel(self, path: str | None) -> str | None:
        if path and self.root and path.startswith(self.root):
            return path[len(self.root):]
        return path

    def report(self) -> dict[str, Any]:
        """The structure the model reads (see :func:`summary` for its one-line digest)."""
        self.feed_bytes(b"", final=True)
        out: dict[str, Any] = {
            "result": self.verdicts[-1] if self.verdicts else None,
            "errors": [d.as_dict() for d in self.errors],
            "warnings": [d.as_dict() for d in self.warnings],
        }
        tests = self.test_report()
        if tests:
            out["tests"] = tests
        if self.failed_commands:
            out["failed_commands"] = self.failed_commands
        if self.destinations:
            out["available_destinations"] = self.destinations
        if self.cut:
            out["cut"] = {k: f"{v} more not shown" for k, v in self.cut.items()}
        out["lines"] = self.lines
        out["summary"] = summary(out)
        return out

    def test_report(self) -> dict[str, Any] | None:
        cases = list(self.tests.values())
        self._orphan_failures(cases)
        if not cases and not self.totals:
            return None
        counts = {s: sum(c.status == s for c in cases) for s in ("passed", "failed", "skipped")}
        for status, n in self.totals.get("cut_cases", {}).items():
            counts[status] += n
        return {
            "total": sum(counts.values()), **counts,
            "duration": round(sum(c.duration or 0.0 for c in cases), 3),
            "failures": [c.as_dict() for c in cases if c.status == "failed"],
            "skipped_cases": [c.as_dict() for c in cases if c.status == "skipped"][:50],
            "cases": [c.as_dict() for c in cases],
        }

    def _orphan_failures(self, cases: list[TestCase]) -> None:
        """A ``Failing tests:`` name with no case line (a crash): it counts as failed."""
        known = {_bare(c.name) for c in cases if c.status == "failed"}
        for name in self.failing_tests:
            suite, test = _split_test(name)
            if _bare(test) in known:
                continue
            case = TestCase(suite, test, "failed",
                            message="listed under 'Failing tests' with no result line (crashed or timed out?)")
            self.tests[(case.suite, case.name)] = case
            cases.append(case)
            known.add(_bare(test))


def _bare(name: str) -> str:
    return name.strip().strip('"').removesuffix("()")


def _split_test(name: str) -> tuple[str | None, str]:
    """``Suite.test()`` or ``Suite/display name`` -> (suite, test)."""
    cut = max(name.rfind("/"), name.rfind(".", 0, name.find("(") if "(" in name else len(name)))
    return (name[:cut], name[cut + 1:]) if cut > 0 else (None, name)


def summary(report: dict[str, Any]) -> str:
    """One or two lines the model can act on: the verdict, the counts, the first problem."""
    errors, warnings = report.get("errors", []), report.get("warnings", [])
    verdict = report.get("result") or ("FAILED" if errors else "finished")
    parts = [f"{verdict}: {len(errors)} error{'s' * (len(errors) != 1)}, "
             f"{len(warnings)} warning{'s' * (len(warnings) != 1)}"]
    kinds = sorted({e["kind"] for e in errors} - {"compiler"})
    if kinds:
        parts[0] += f" ({', '.join(kinds)})"
    tests = report.get("tests")
    if tests:
        parts[0] += (f"; tests: {tests['total']} run, {tests['passed']} passed, "
                     f"{tests['failed']} failed, {tests['skipped']} skipped")
    if errors:
        parts.append("first error: " + _where(errors[0]) + errors[0]["message"])
    elif tests and tests["failures"]:
        f = tests["failures"][0]
        name = f"{f['suite']}.{f['name']}" if f.get("suite") else f["name"]
        parts.append(f"first failure: {name} {_where(f)}{f.get('message') or ''}".rstrip())
    return "\n".join(parts)


def _where(item: dict[str, Any]) -> str:
    if not item.get("file"):
        return ""
    loc = ":".join(str(item[k]) for k in ("file", "line", "column") if item.get(k) is not None)
    return f"{loc}: "


def _split_target(message: str) -> tuple[str, str | None]:
    m = patterns()["in_target"].search(message)
    if m is None:
        return message, None
    return message[: m.start()].rstrip(), m["target"]


def _bounded_append(items: list[Any], item: Any, cap: int) -> None:
    if len(items) < cap and item not in items:
        items.append(item)


def parse_text(text: str, root: Path | None = None) -> dict[str, Any]:
    """Parse a whole log (tests and tools that already hold the output)."""
    log = BuildLog(root)
    log.feed_bytes(text.encode("utf-8"), final=True)
    return log.report()
