"""Critical/high findings per 50k lines of clean non-test code, on local project trees.

Usage: python bench/bench_security_trees.py TREE [TREE ...] [--scanners sast,secrets]
                                            [--json] [--all-findings]

Issue 14's precision target is at most one critical/high finding per 50k lines of clean
non-test code. Point this at checkouts of well-known, clean projects (kept outside this
repository: `git archive HEAD | tar -x -C /tmp/x`). For each tree it runs the audit (all
scanners unless --scanners, no cache, one worker) and prints:

- non-test lines per language: non-blank lines of the files the audit reads whose path
  category is ``source`` (tests, examples, fixtures, docs, vendored and generated code are
  left out, with the same globs the audit uses to demote findings there);
- the critical/high findings in source code (and developer scripts), their rate per 50k
  of those lines, and the rule ids (with counts);
- "anywhere": the critical/high findings a user sees in the whole report, tests and
  fixtures included (after their demotion), per 50k of the same lines — issue 27's
  measure (a test suite's own TLS keys at high counted there);
- with --all-findings, every such finding's file, line and title, to judge by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.discovery import discover
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.engines.security.finding import Severity
from aiagent.engines.security.pathcontext import SCRIPT, SOURCE, default_categories

CODE_LANGUAGES = frozenset({
    "python", "javascript", "typescript", "tsx", "go", "java", "kotlin", "ruby", "php",
    "csharp", "swift", "objective-c",
})
SEVERE = frozenset({Severity.CRITICAL, Severity.HIGH})
PER = 50_000
PRODUCT = frozenset({SOURCE, SCRIPT})  # non-test code: the product and its developer scripts


def source_lines(root: Path) -> Counter[str]:
    """Non-blank lines per language of the audit's files in source (non-test) code."""
    cats = default_categories()
    lines: Counter[str] = Counter()
    for f in discover(root, []).files:
        if f.language in CODE_LANGUAGES and cats.category(f.rel) in PRODUCT:
            lines[f.language] += sum(1 for line in f.path.read_bytes().splitlines() if line.strip())
    return lines


def measure(root: Path, scanners: tuple[str, ...]) -> dict[str, object]:
    result = run_audit(root, SecurityConfig(), AuditOptions(scanners=scanners, jobs=1))
    severe = [f for f in result.findings
              if f.severity in SEVERE and f.path_category in PRODUCT]
    anywhere = [f for f in result.findings if f.severity in SEVERE]
    lines = source_lines(root)
    total = sum(lines.values())
    return {
        "tree": str(root), "lines": dict(lines.most_common()), "total_lines": total,
        "severe": len(severe), "per_50k": PER * len(severe) / total if total else 0.0,
        "anywhere": len(anywhere),
        "anywhere_per_50k": PER * len(anywhere) / total if total else 0.0,
        "rules": dict(Counter(f.id for f in severe).most_common()),
        "rules_anywhere": dict(Counter(f"{f.id}@{f.path_category}" for f in anywhere)
                               .most_common()),
        "findings": [{"rule": f.id, "severity": f.severity.value, "file": f.location.file,
                      "line": f.location.start_line, "title": f.title} for f in severe],
        "demoted": sum(1 for f in result.findings if f.metadata.get("demoted_for")
                       and f.metadata.get("original_severity") in {"critical", "high"}),
    }


def print_table(rows: list[dict[str, object]], details: bool) -> None:
    print(f"{'tree':<22}{'non-test lines (by language)':<44}{'crit/high':>10}{'per 50k':>9}"
          f"{'anywhere':>9}{'per 50k':>9}{'demoted':>9}  rules (anywhere)")
    for r in rows:
        langs = ", ".join(f"{k} {v}" for k, v in r["lines"].items())  # type: ignore[attr-defined]
        rules = ", ".join(f"{k}×{v}" for k, v in r["rules_anywhere"].items()) or "-"  # type: ignore[attr-defined]
        name = Path(str(r["tree"])).name
        print(f"{name:<22}{langs:<44}{r['severe']:>10}{r['per_50k']:>9.2f}{r['anywhere']:>9}"
              f"{r['anywhere_per_50k']:>9.2f}{r['demoted']:>9}  {rules}")
    total_lines = sum(int(r["total_lines"]) for r in rows)  # type: ignore[call-overload]
    total_severe = sum(int(r["severe"]) for r in rows)  # type: ignore[call-overload]
    total_anywhere = sum(int(r["anywhere"]) for r in rows)  # type: ignore[call-overload]
    if len(rows) > 1 and total_lines:
        print(f"{'all':<22}{f'{total_lines} lines':<44}{total_severe:>10}"
              f"{PER * total_severe / total_lines:>9.2f}{total_anywhere:>9}"
              f"{PER * total_anywhere / total_lines:>9.2f}")
    print("(demoted: critical/high findings outside source code, reported one level lower)")
    if details:
        for r in rows:
            for f in r["findings"]:  # type: ignore[attr-defined]
                print(f"  {Path(str(r['tree'])).name}: {f['severity']} {f['rule']} "
                      f"{f['file']}:{f['line']} {f['title']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--scanners", default="", help="comma-separated (default: all)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--all-findings", action="store_true",
                        help="list every critical/high finding in source code")
    args = parser.parse_args()
    scanners = tuple(s for s in args.scanners.split(",") if s)
    for tree in args.trees:
        if not tree.is_dir():
            print(f"bench_security_trees: error: {tree}: not a folder", file=sys.stderr)
            return 2
    rows = [measure(tree.resolve(), scanners) for tree in args.trees]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(rows, args.all_findings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
