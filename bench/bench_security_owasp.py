"""Score the static scan on the OWASP Benchmark for Python or Java, beside bandit and semgrep.

Usage: python bench/bench_security_owasp.py CORPUS [--peers-bin DIR] [--semgrep-rules DIR]
                                           [--json] [--misses CATEGORY]

CORPUS is a local copy of the public BenchmarkPython or BenchmarkJava repository (kept
outside this repository: `git archive HEAD | tar -x -C /work/corpora/BenchmarkPython`; for
Java the CSV and ``src/main/java/org/owasp/benchmark/testcode`` are enough). Its
``expectedresults-*.csv`` says, for each ``BenchmarkTestNNNNN`` file of the test code
folder (``testcode/`` for Python), its category,
whether it is a real vulnerability and the CWE. A tool *flags* a test case when it reports
at least one finding (any severity but info) in that file whose CWE belongs to the case's
category (``CATEGORY_CWES``: a category's close CWEs count, e.g. CWE-327 or CWE-328 for a
weak hash; for Java, whose benchmark tells a weak cipher, CWE-327, from a weak hash, CWE-328,
``JAVA_CWES`` replaces those two categories). bandit only reads Python and semgrep runs only
with local --semgrep-config rules (no network), so on Java the table may hold aiagent alone.
For bandit, whose CWE numbers are coarse (CWE-20 for every XML parser), its test
ids are mapped to categories as well (``BANDIT_TESTS``), as the benchmark's own scorecard
reader does. Per category and overall this prints TP/FN/TN/FP, TPR, FPR and Youden's index
(TPR - FPR); the overall score is the mean of the categories' (the benchmark's convention).
``--misses CAT`` lists the files of that category the tool gets wrong, to read by hand.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

CATEGORY_CWES = {
    "cmdi": {78, 77, 88}, "codeinj": {94, 95}, "deserialization": {502},
    "hash": {327, 328, 916}, "ldapi": {90}, "pathtraver": {22, 23, 36, 73},
    "redirect": {601}, "securecookie": {614, 1004}, "sqli": {89}, "trustbound": {501},
    "weakrand": {330, 338}, "xpathi": {643}, "xss": {79, 80}, "xxe": {611, 776},
}
BANDIT_TESTS = {  # bandit test id -> category (its CWE field is too coarse for some)
    "B102": "codeinj", "B307": "codeinj", "B301": "deserialization", "B302": "deserialization",
    "B403": "deserialization", "B506": "deserialization", "B303": "hash", "B324": "hash",
    "B311": "weakrand", "B608": "sqli", "B602": "cmdi", "B603": "cmdi", "B604": "cmdi",
    "B605": "cmdi", "B606": "cmdi", "B607": "cmdi", "B609": "cmdi", "B404": "cmdi",
    **{f"B{n}": "xxe" for n in (*range(313, 321), *range(405, 411))},
    "B701": "xss", "B702": "xss", "B703": "xss",
}
# BenchmarkJava scores a weak cipher (crypto, CWE-327) apart from a weak hash (CWE-328)
JAVA_CWES = {**CATEGORY_CWES, "crypto": {327, 326}, "hash": {328, 916}}
JAVA_TESTCODE = Path("src/main/java/org/owasp/benchmark/testcode")
NAME = re.compile(r"BenchmarkTest\d+")


def testcode(corpus: Path) -> Path:
    """The test code folder, relative to the corpus: Python's testcode/ or Java's package."""
    for rel in (Path("testcode"), JAVA_TESTCODE):
        if (corpus / rel).is_dir():
            return rel
    raise SystemExit(f"bench_security_owasp: error: {corpus}: no testcode/ or {JAVA_TESTCODE} folder")


def category_cwes(corpus: Path) -> dict[str, set[int]]:
    return JAVA_CWES if testcode(corpus) == JAVA_TESTCODE else CATEGORY_CWES


def expected(corpus: Path) -> dict[str, tuple[str, bool]]:
    """test name -> (category, real vulnerability)."""
    files = sorted(corpus.glob("expectedresults-*.csv"))
    if not files:
        raise SystemExit(f"bench_security_owasp: error: {corpus}: no expectedresults-*.csv")
    out = {}
    with files[-1].open(encoding="utf-8") as fh:
        for row in csv.reader(fh):
            if row and not row[0].startswith("#") and len(row) >= 3:
                out[row[0].strip()] = (row[1].strip(), row[2].strip() == "true")
    return out


def ours(corpus: Path) -> dict[str, set[str]]:
    """test name -> categories aiagent flags in it."""
    from aiagent.engines.security.config import SecurityConfig
    from aiagent.engines.security.engine import AuditOptions, run_audit
    from aiagent.engines.security.finding import Severity

    result = run_audit(corpus / testcode(corpus), SecurityConfig(),
                       AuditOptions(scanners=("sast",), jobs=1))
    categories = category_cwes(corpus)
    flagged: dict[str, set[str]] = defaultdict(set)
    for f in result.findings:
        m = NAME.search(f.location.file)
        cwe = int(f.cwe.split("-")[-1]) if f.cwe and f.cwe.split("-")[-1].isdigit() else 0
        if m and f.severity != Severity.INFO:
            flagged[m.group()] |= {c for c, cwes in categories.items() if cwe in cwes}
    return flagged


def bandit(exe: str, corpus: Path) -> dict[str, set[str]]:
    proc = subprocess.run([exe, "-r", "-q", "-f", "json", "testcode"], cwd=corpus,
                          capture_output=True, text=True, check=False)
    data = json.loads(proc.stdout or "{}")
    flagged: dict[str, set[str]] = defaultdict(set)
    for r in data.get("results", []):
        m = NAME.search(r["filename"])
        if not m:
            continue
        cwe = int(r.get("issue_cwe", {}).get("id", 0) or 0)
        cats = {c for c, cwes in CATEGORY_CWES.items() if cwe in cwes}
        if r.get("test_id") in BANDIT_TESTS:
            cats.add(BANDIT_TESTS[r["test_id"]])
        flagged[m.group()] |= cats
    return flagged


def semgrep(exe: str, corpus: Path, config: str) -> dict[str, set[str]]:
    configs = [arg for part in config.split(",") for arg in ("--config", part)]
    proc = subprocess.run([exe, "scan", "--metrics=off", "--disable-version-check", *configs,
                           "--json", "-q", "--no-git-ignore", str(testcode(corpus))], cwd=corpus,
                          capture_output=True, text=True, check=False)
    data = json.loads(proc.stdout or "{}")
    categories = category_cwes(corpus)
    flagged: dict[str, set[str]] = defaultdict(set)
    for r in data.get("results", []):
        m = NAME.search(r["path"])
        cwes = r.get("extra", {}).get("metadata", {}).get("cwe") or []
        for cwe in cwes if isinstance(cwes, list) else [cwes]:
            n = re.match(r"CWE-(\d+)", str(cwe))
            if m and n:
                flagged[m.group()] |= {c for c, s in categories.items() if int(n.group(1)) in s}
    return flagged


def score(truth: dict[str, tuple[str, bool]], flagged: dict[str, set[str]]) -> dict[str, dict]:
    table: dict[str, dict] = {c: {"tp": 0, "fn": 0, "tn": 0, "fp": 0, "wrong": []}
                              for c in sorted({c for c, _ in truth.values()})}
    for name, (cat, real) in sorted(truth.items()):
        hit = cat in flagged.get(name, set())
        key = ("tp" if hit else "fn") if real else ("fp" if hit else "tn")
        table[cat][key] += 1
        if key in {"fn", "fp"}:
            table[cat]["wrong"].append(f"{name} {key}")
    for row in table.values():
        row["tpr"] = row["tp"] / max(1, row["tp"] + row["fn"])
        row["fpr"] = row["fp"] / max(1, row["fp"] + row["tn"])
        row["youden"] = row["tpr"] - row["fpr"]
    return table


def overall(table: dict[str, dict]) -> dict[str, float]:
    """The mean of the categories' rates (the benchmark's scorecard) and the pooled rates
    (all cases counted together: large categories weigh more)."""
    n = len(table)
    out = {k: sum(r[k] for r in table.values()) / n for k in ("tpr", "fpr", "youden")}
    tot = {k: sum(r[k] for r in table.values()) for k in ("tp", "fn", "fp", "tn")}
    out["pooled_tpr"] = tot["tp"] / max(1, tot["tp"] + tot["fn"])
    out["pooled_fpr"] = tot["fp"] / max(1, tot["fp"] + tot["tn"])
    out["pooled_youden"] = out["pooled_tpr"] - out["pooled_fpr"]
    return out


def print_report(scores: dict[str, dict[str, dict]]) -> None:
    names = list(scores)
    print(f"{'category':<16}{'cases':>6}" + "".join(f"{n:>24}" for n in names))
    print(f"{'':<22}" + "".join(f"{'TP/FN FP/TN  Youden':>24}" for _ in names))
    for cat in scores[names[0]]:
        first = scores[names[0]][cat]
        row = f"{cat:<16}{first['tp'] + first['fn'] + first['fp'] + first['tn']:>6}"
        for n in names:
            r = scores[n][cat]
            row += f"{r['tp']:>6}/{r['fn']:<3}{r['fp']:>4}/{r['tn']:<3}{r['youden']:>+7.2f}"
        print(row)
    for label, prefix in (("mean of categories", ""), ("pooled", "pooled_")):
        row = f"{label:<22}"
        for n in names:
            o = overall(scores[n])
            rates = f"TPR {o[prefix + 'tpr']:.2f} FPR {o[prefix + 'fpr']:.2f}"
            row += f"{rates:>18}{o[prefix + 'youden']:>+6.2f}"
        print(row)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--peers-bin", type=Path)
    parser.add_argument("--semgrep-config", help="semgrep --config value(s), comma-separated")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", help="list the wrong cases of this category")
    args = parser.parse_args()
    java = testcode(args.corpus) == JAVA_TESTCODE
    truth = expected(args.corpus)
    runs = {"aiagent": lambda: ours(args.corpus)}

    def find(name: str) -> str | None:
        if args.no_peers:
            return None
        if args.peers_bin is not None and (args.peers_bin / name).exists():
            return str(args.peers_bin / name)
        return shutil.which(name)

    if not java and (exe := find("bandit")):
        runs["bandit"] = lambda exe=exe: bandit(exe, args.corpus)
    if (exe := find("semgrep")) and args.semgrep_config:
        runs["semgrep"] = lambda exe=exe: semgrep(exe, args.corpus, args.semgrep_config)
    scores = {name: score(truth, run()) for name, run in runs.items()}
    if args.json:
        json.dump({n: {"categories": {c: {k: v for k, v in r.items() if k != "wrong"}
                                      for c, r in t.items()}, "overall": overall(t)}
                   for n, t in scores.items()}, sys.stdout, indent=2)
        print()
    else:
        print_report(scores)
    if args.misses:
        for n, t in scores.items():
            for line in t.get(args.misses, {}).get("wrong", []):
                print(f"{n}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
