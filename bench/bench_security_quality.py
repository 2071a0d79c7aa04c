"""Recall, false positives and noise of the static scan on aiagent's quality corpus.

Usage: python bench/bench_security_quality.py [--json] [--tree PATH ...]
           [--peers-bin DIR] [--semgrep-config RULES | --semgrep-rules DIR]

The corpus (bench/corpus/, see its README) holds per rule family vulnerable code whose
vulnerable lines end with a ``VULN`` comment, the fixed twins, and clean code. For each
tool this prints per family: recall (labelled lines reported, ±1 line, with a CWE of the
family), the false-positive rate (share of fixed twin files with a finding of the family)
and, for the clean set and every --tree, critical/high findings per 10k lines of non-test
code. Peers run when installed (looked up in --peers-bin, default PATH): bandit (Python
only) and semgrep, which needs a rule set: semgrep's registry packs (``p/python``) need the
network, so without --semgrep-config it is reported as not run. Offline, pass
--semgrep-rules DIR: a local copy of the public semgrep-rules repository (e.g.
`git archive HEAD python javascript java go php ruby | tar -x -C DIR`, kept outside this
repository); the language folders in it are used, and the report names the folder and
the commit (from `git rev-parse` or a COMMIT file in DIR).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.engines.security.finding import Severity

CORPUS = Path(__file__).resolve().parent / "corpus"
LINE_SLACK = 1
FAMILIES = {
    "sqli": {"CWE-89"}, "cmdi": {"CWE-78", "CWE-77", "CWE-88"}, "code": {"CWE-95", "CWE-94"},
    "path": {"CWE-22", "CWE-23", "CWE-73", "CWE-98"}, "ssrf": {"CWE-918"}, "redirect": {"CWE-601"},
    "xss": {"CWE-79", "CWE-80"}, "ssti": {"CWE-1336", "CWE-94", "CWE-79"},
    "deser": {"CWE-502"}, "nosql": {"CWE-943"}, "redos": {"CWE-1333", "CWE-400", "CWE-730"},
    "xxe": {"CWE-611", "CWE-776"}, "secret": {"CWE-798", "CWE-321", "CWE-259", "CWE-547"},
    "hash": {"CWE-327", "CWE-328", "CWE-916"}, "tls": {"CWE-295"},
}
SOURCE_SUFFIXES = {".py", ".js", ".ts", ".go", ".java", ".php", ".rb", ".kt"}
TEST_PARTS = {"tests", "test", "testing", "__tests__", "examples", "docs"}


@dataclass(frozen=True)
class Hit:
    file: str  # relative to the scanned root
    line: int
    cwe: str
    severe: bool  # critical or high


def labels() -> dict[str, list[tuple[str, int]]]:
    """family -> [(file relative to the corpus, line)] of every VULN-marked line."""
    out: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for path in sorted((CORPUS / "vuln").rglob("*")):
        if path.suffix in SOURCE_SUFFIXES:
            family = path.relative_to(CORPUS / "vuln").parts[0]
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"(#|//)\s*VULN\b", line):
                    out[family].append((str(path.relative_to(CORPUS)), n))
    return out


def ours(root: Path) -> list[Hit]:
    result = run_audit(root, SecurityConfig(), AuditOptions(scanners=("sast", "secrets"), jobs=1))
    return [Hit(f.location.file, f.location.start_line, f.cwe,
                f.severity in {Severity.CRITICAL, Severity.HIGH}) for f in result.findings
            if f.severity != Severity.INFO]


def bandit(exe: str, root: Path) -> list[Hit]:
    proc = subprocess.run([exe, "-r", "-q", "-f", "json", "."], cwd=root, capture_output=True,
                          text=True, check=False)
    data = json.loads(proc.stdout or "{}")
    return [Hit(os.path.normpath(r["filename"]), r["line_number"],
                f"CWE-{r.get('issue_cwe', {}).get('id', 0)}",
                r["issue_severity"] in {"HIGH", "CRITICAL"}) for r in data.get("results", [])]


def semgrep(exe: str, root: Path, config: str) -> list[Hit]:
    env = {**os.environ, "SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off"}
    configs = [arg for part in config.split(",") for arg in ("--config", part)]
    proc = subprocess.run([exe, "scan", "--metrics=off", "--disable-version-check", *configs,
                           "--json", "-q", "--no-git-ignore", "."], cwd=root, capture_output=True,
                          text=True, env=env, check=False)
    data = json.loads(proc.stdout or "{}")
    hits = []
    for r in data.get("results", []):
        meta = r.get("extra", {}).get("metadata", {})
        cwes = meta.get("cwe") or [""]
        cwes = cwes if isinstance(cwes, list) else [cwes]
        severe = r.get("extra", {}).get("severity") == "ERROR"
        for cwe in cwes:
            m = re.match(r"CWE-\d+", str(cwe))
            hits.append(Hit(r["path"], r["start"]["line"], m.group(0) if m else "", severe))
    return hits


def score(hits: list[Hit], wanted: dict[str, list[tuple[str, int]]]) -> dict[str, dict[str, float]]:
    by_file: dict[str, list[Hit]] = defaultdict(list)
    for h in hits:
        by_file[h.file].append(h)
    out = {}
    for family, cwes in FAMILIES.items():
        found = sum(1 for rel, line in wanted.get(family, []) if any(
            abs(h.line - line) <= LINE_SLACK and h.cwe in cwes for h in by_file[rel]))
        fixed = [p for p in sorted((CORPUS / "fixed" / family).glob("*")) if p.suffix in SOURCE_SUFFIXES]
        noisy = sum(1 for p in fixed if any(h.cwe in cwes for h in by_file[str(p.relative_to(CORPUS))]))
        total = len(wanted.get(family, []))
        out[family] = {"labels": total, "found": found, "recall": found / total if total else 1.0,
                       "fp_rate": noisy / len(fixed) if fixed else 0.0}
    return out


def code_lines(root: Path, skip_tests: bool) -> int:
    total = 0
    for path in root.rglob("*"):
        if path.suffix in SOURCE_SUFFIXES and path.is_file() and not (
                skip_tests and _is_test(path.relative_to(root))):
            total += sum(1 for line in path.read_bytes().splitlines() if line.strip())
    return total


def _is_test(rel: Path) -> bool:
    return bool(TEST_PARTS & set(rel.parts[:-1])) or rel.name.startswith("test_")


def noise(hits: list[Hit], root: Path) -> dict[str, float]:
    """Critical/high findings in non-test code, per 10k lines."""
    lines = code_lines(root, skip_tests=True)
    severe = sum(1 for h in hits if h.severe and not _is_test(Path(h.file)))
    return {"lines": lines, "severe": severe, "per_10k": 1e4 * severe / lines if lines else 0.0}


def tools(peers_bin: Path | None, semgrep_config: str | None, peers: bool) -> dict[str, object]:
    def find(name: str) -> str | None:
        if not peers:
            return None
        if peers_bin is not None and (peers_bin / name).exists():
            return str((peers_bin / name).resolve())
        return shutil.which(name)

    found: dict[str, object] = {"aiagent": ours}
    if exe := find("bandit"):
        found["bandit"] = lambda root, exe=exe: bandit(exe, root)
    if (exe := find("semgrep")) and semgrep_config:
        found["semgrep"] = lambda root, exe=exe: semgrep(exe, root, semgrep_config)
    return found


RULE_LANGUAGES = ("python", "javascript", "typescript", "java", "go", "php", "ruby")


def semgrep_rules(folder: Path) -> tuple[str, str]:
    """(a --config value naming the folder's language rule sets, the commit they come from)."""
    if not folder.is_dir():
        raise SystemExit(f"bench_security_quality: error: --semgrep-rules {folder}: not a folder")
    langs = [str(folder / lang) for lang in RULE_LANGUAGES if (folder / lang).is_dir()]
    commit_file = folder / "COMMIT"
    commit = commit_file.read_text().strip() if commit_file.exists() else ""
    if not commit:
        proc = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=False)
        commit = proc.stdout.strip() or "unknown"
    return ",".join(langs) or str(folder), commit


def evaluate(args: argparse.Namespace) -> dict[str, object]:
    wanted = labels()
    report: dict[str, object] = {"tools": {}, "not_run": []}
    if args.semgrep_rules is not None:
        args.semgrep_config, commit = semgrep_rules(args.semgrep_rules)
        report["semgrep_rules"] = {"folder": str(args.semgrep_rules), "commit": commit}
    available = tools(args.peers_bin, args.semgrep_config, not args.no_peers)
    if "semgrep" not in available:
        report["not_run"] = ["semgrep (its registry rule packs need the network; pass --semgrep-config"
                             " or --semgrep-rules)"]
    for name, run in available.items():
        corpus_hits = run(CORPUS)  # type: ignore[operator]
        entry = {"families": score(corpus_hits, wanted),
                 "clean": noise([h for h in corpus_hits if h.file.startswith("clean/")], CORPUS / "clean")}
        entry["clean"]["lines"] = code_lines(CORPUS / "clean", skip_tests=True)
        entry["trees"] = {str(t): noise(run(t), t) for t in args.tree}  # type: ignore[operator]
        report["tools"][name] = entry  # type: ignore[index]
    return report


def _summary(families: dict[str, dict[str, float]]) -> tuple[float, float]:
    found = sum(f["found"] for f in families.values())
    total = sum(f["labels"] for f in families.values())
    fp = sum(f["fp_rate"] for f in families.values()) / len(families)
    return found / total if total else 1.0, fp


def print_report(report: dict[str, object]) -> None:
    names = list(report["tools"])  # type: ignore[arg-type]
    data = report["tools"]  # type: ignore[assignment]
    header = f"{'family':<10}{'labels':>7}" + "".join(f"{n + ' recall':>16}{'FP rate':>9}" for n in names)
    print(header)
    for family in FAMILIES:
        first = data[names[0]]["families"][family]  # type: ignore[index]
        row = f"{family:<10}{first['labels']:>7}"
        for n in names:
            f = data[n]["families"][family]  # type: ignore[index]
            row += f"{f['recall']:>16.2f}{f['fp_rate']:>9.2f}"
        print(row)
    row = f"{'all':<10}{'':>7}"
    for n in names:
        recall, fp = _summary(data[n]["families"])  # type: ignore[index]
        row += f"{recall:>16.2f}{fp:>9.2f}"
    print(row)
    for n in names:
        clean = data[n]["clean"]  # type: ignore[index]
        print(f"{n}: clean set {clean['lines']} lines, {clean['severe']} critical/high "
              f"({clean['per_10k']:.2f} per 10k lines)")
        for tree, t in data[n]["trees"].items():  # type: ignore[index]
            print(f"{n}: {tree}: {t['lines']} non-test lines, {t['severe']} critical/high "
                  f"({t['per_10k']:.2f} per 10k, {t['per_10k'] * 5:.2f} per 50k)")
    if "semgrep_rules" in report:
        rules = report["semgrep_rules"]  # type: ignore[index]
        print(f"semgrep rules: {rules['folder']} at commit {rules['commit']}")  # type: ignore[index]
    for note in report["not_run"]:  # type: ignore[attr-defined]
        print(f"not run: {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tree", type=Path, action="append", default=[])
    parser.add_argument("--peers-bin", type=Path)
    parser.add_argument("--semgrep-config")
    parser.add_argument("--semgrep-rules", type=Path,
                        help="a local copy of the semgrep-rules repository (no network needed)")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    report = evaluate(args)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
