"""Precision and recall of each static scanner on aiagent's labeled corpus.

Usage: python bench/security_corpus.py [--json]

The corpus (tests/security/corpus/) is small realistic code in every supported language
with known vulnerable and safe code side by side; tests/security/corpus_labels.yaml lists
each known vulnerability (file, line, scanner, CWE). A finding is a true positive when it
hits a labelled line (±1) of its file with the same scanner (and CWE, when the label has
one); any other finding is a false positive; an unmatched label is a false negative.
Info-severity findings (correlation signals such as "route without auth") are not scored.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.engines.security.finding import Finding, Severity

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "security" / "corpus"
LABELS = HERE.parent / "tests" / "security" / "corpus_labels.yaml"
LINE_SLACK = 1
# CWEs that name the same weakness at different precision count as one.
CWE_FAMILIES = [frozenset({"CWE-327", "CWE-328", "CWE-916"})]


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def _same_cwe(a: str, b: str) -> bool:
    return a == b or any(a in family and b in family for family in CWE_FAMILIES)


def _hits(label: dict[str, Any], finding: Finding) -> bool:
    return (finding.scanner == label["scanner"]
            and abs(finding.location.start_line - label["line"]) <= LINE_SLACK
            and (not label.get("cwe") or _same_cwe(finding.cwe, label["cwe"])))


def score(findings: list[Finding], labels: dict[str, list[dict[str, Any]]]) -> dict[str, Score]:
    scores: dict[str, Score] = defaultdict(Score)
    matched: set[tuple[str, int]] = set()
    for f in findings:
        if f.severity == Severity.INFO:
            continue
        wanted = labels.get(f.location.file) or []
        hits = [i for i, lab in enumerate(wanted) if _hits(lab, f)]
        free = sorted((abs(wanted[i]["line"] - f.location.start_line), i) for i in hits
                      if (f.location.file, i) not in matched)
        if not hits:
            scores[f.scanner].fp += 1
        elif free:  # a second finding on an already-matched label is a duplicate: not scored
            matched.add((f.location.file, free[0][1]))
            scores[f.scanner].tp += 1
    for rel, wanted in labels.items():
        for i, lab in enumerate(wanted):
            if (rel, i) not in matched:
                scores[lab["scanner"]].fn += 1
    return dict(sorted(scores.items()))


def evaluate() -> tuple[dict[str, Score], list[Finding]]:
    labels = yaml.safe_load(LABELS.read_text(encoding="utf-8"))
    result = run_audit(CORPUS, SecurityConfig(), AuditOptions(jobs=1))
    return score(result.findings, labels), result.findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print machine-readable scores")
    parser.add_argument("--misses", action="store_true", help="list false positives/negatives")
    args = parser.parse_args()
    scores, findings = evaluate()
    if args.json:
        json.dump({k: {"tp": s.tp, "fp": s.fp, "fn": s.fn, "precision": round(s.precision, 3),
                       "recall": round(s.recall, 3)} for k, s in scores.items()}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{'scanner':<10} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}")
    total = Score()
    for name, s in scores.items():
        total.tp, total.fp, total.fn = total.tp + s.tp, total.fp + s.fp, total.fn + s.fn
        print(f"{name:<10} {s.tp:>4} {s.fp:>4} {s.fn:>4} {s.precision:>10.2f} {s.recall:>8.2f}")
    print(f"{'all':<10} {total.tp:>4} {total.fp:>4} {total.fn:>4} "
          f"{total.precision:>10.2f} {total.recall:>8.2f}")
    if args.misses:
        _print_misses(findings)
    return 0


def _print_misses(findings: list[Finding]) -> None:
    labels = yaml.safe_load(LABELS.read_text(encoding="utf-8"))
    for f in findings:
        if f.severity != Severity.INFO and not any(
                _hits(lab, f) for lab in labels.get(f.location.file) or []):
            print(f"FP {f.location.file}:{f.location.start_line} {f.id}")
    for rel, wanted in labels.items():
        for lab in wanted:
            if not any(f.location.file == rel and _hits(lab, f) for f in findings):
                print(f"FN {rel}:{lab['line']} {lab['scanner']} {lab.get('cwe', '')}")


if __name__ == "__main__":
    sys.exit(main())
