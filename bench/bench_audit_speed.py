"""Cold audit speed on a ~100k-line tree of real Python, beside bandit and semgrep.

Usage: python bench/bench_audit_speed.py [--lines 100000] [--runs 5] [--source DIR]
                                         [--scanners sast] [--no-peers] [--peers-bin DIR]
                                         [--compile]

Copies real Python files (default: the ``pip`` package of this interpreter's
site-packages, in sorted path order) into a temporary tree until it holds --lines lines,
then runs, each in a fresh child process and cold (no scan cache, a fresh XDG data dir):
our static audit (all scanners, or --scanners), and bandit / semgrep when installed.
Each tool runs --runs times; the table shows the median wall seconds and the median CPU
seconds (user + sys of the child and its reaped workers, from ``os.wait4``) and the
finding count of every run. The machine may be shared: CPU seconds are the fairer figure,
and the load average is printed before and after each tool.

Start-up depends on cached bytecode: the header says whether this interpreter may write it
(PYTHONDONTWRITEBYTECODE) and whether aiagent's modules have it; ``--compile`` compiles
this interpreter's site-packages and aiagent first (run with
``env -u PYTHONDONTWRITEBYTECODE`` where that variable is set, so the audits use it).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

OURS = """
import json, sys
from pathlib import Path
from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, run_audit
names = tuple(n for n in sys.argv[2].split(",") if n)
r = run_audit(Path(sys.argv[1]), SecurityConfig(), AuditOptions(scanners=names))
print(json.dumps({"findings": len(r.findings), "lines": r.lines_scanned}))
"""

SEMGREP_RULES = """rules:
  - {id: py-sqli, languages: [python], severity: ERROR, message: sqli, pattern: $C.execute("..." % $X)}
  - {id: py-cmdi, languages: [python], severity: ERROR, message: cmdi, pattern: os.system("..." + $X)}
  - {id: py-eval, languages: [python], severity: ERROR, message: eval, pattern: eval($X)}
  - {id: py-pickle, languages: [python], severity: ERROR, message: pickle, pattern: pickle.loads($X)}
  - {id: py-md5, languages: [python], severity: WARNING, message: md5, pattern: hashlib.md5(...)}
  - {id: py-verify, languages: [python], severity: ERROR, message: tls, pattern: "$F(..., verify=False, ...)"}
  - {id: py-shell, languages: [python], severity: ERROR, message: shell, pattern: "subprocess.$F(..., shell=True, ...)"}
  - {id: py-yaml, languages: [python], severity: ERROR, message: yaml, pattern: yaml.load(...)}
"""


def build_tree(source: Path, dest: Path, target_lines: int) -> tuple[int, int]:
    lines = files = 0
    for path in sorted(source.rglob("*.py")):
        if lines >= target_lines:
            break
        text = path.read_bytes()
        out = dest / path.relative_to(source.parent)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(text)
        lines += text.count(b"\n")
        files += 1
    return lines, files


def run_child(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, cpu s of the child and its reaped descendants, stdout)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return wall, usage.ru_utime + usage.ru_stime, text


def bytecode_state() -> str:
    """Whether the audit's own modules load from fresh bytecode (a cold start compiles
    them otherwise), and whether this interpreter may write it."""
    spec = importlib.util.find_spec("aiagent.engines.security.engine")
    origin = Path(spec.origin) if spec and spec.origin else None
    fresh = False
    if origin is not None:
        cached = Path(importlib.util.cache_from_source(str(origin)))
        fresh = cached.exists() and cached.stat().st_mtime >= origin.stat().st_mtime
    writes = "off" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    return f"bytecode: aiagent {'compiled' if fresh else 'NOT compiled'}, writing {writes}"


def compile_bytecode() -> None:
    import aiagent

    paths = [sysconfig.get_paths()["purelib"], str(Path(aiagent.__file__).parent)]
    for path in dict.fromkeys(paths):
        compileall.compile_dir(path, quiet=1, workers=0)


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def measure(label: str, cmd: list[str], cwd: Path, runs: int, count: object) -> None:
    walls, cpus, counts = [], [], []
    before = load()
    for _ in range(runs):
        env = {**os.environ, "XDG_DATA_HOME": tempfile.mkdtemp(), "XDG_CACHE_HOME": tempfile.mkdtemp(),
               "SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off"}
        wall, cpu, text = run_child(cmd, cwd, env)
        walls.append(wall)
        cpus.append(cpu)
        counts.append(count(text) if callable(count) else "-")
    print(f"{label:<28} wall {statistics.median(walls):6.2f} s   cpu {statistics.median(cpus):6.2f} s"
          f"   load {before} -> {load()}   findings per run: {counts}")


def _ours_count(text: str) -> str:
    import json

    try:
        return str(json.loads(text.strip().splitlines()[-1])["findings"])
    except (ValueError, IndexError, KeyError):
        return "error"


def _json_count(key: str):  # type: ignore[no-untyped-def]
    def count(text: str) -> str:
        import json

        try:
            return str(len(json.loads(text)[key]))
        except (ValueError, KeyError, TypeError):
            return "error"
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", type=Path, default=Path(sysconfig.get_paths()["purelib"]) / "pip")
    parser.add_argument("--scanners", default="", help="comma-separated scanner names (default: all)")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--peers-bin", type=Path, default=Path(sys.executable).parent)
    parser.add_argument("--compile", action="store_true",
                        help="compile site-packages and aiagent to bytecode first")
    args = parser.parse_args()
    args.runs = max(args.runs, 1)
    if args.compile:
        compile_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        lines, files = build_tree(args.source, root, args.lines)
        print(f"tree: {files} files, {lines} lines of {args.source}; cores: {os.cpu_count()};"
              f" {args.runs} cold runs each, median; load average (1/5/15 min) {load()}")
        print(bytecode_state())
        measure(f"aiagent audit {args.scanners or 'all'}", [sys.executable, "-c", OURS, str(root),
                args.scanners], root, args.runs, _ours_count)
        if args.no_peers:
            return
        rules = Path(tmp) / "semgrep.yaml"
        rules.write_text(SEMGREP_RULES)
        peers = [("bandit -r", "bandit", ["-r", "-q", "-f", "json", "."], _json_count("results")),
                 ("semgrep (8 local rules)", "semgrep",
                  ["scan", "--metrics=off", "--disable-version-check", "--config", str(rules),
                   "--json", "-q", "."], _json_count("results"))]
        for label, name, peer_args, count in peers:
            exe = args.peers_bin / name if (args.peers_bin / name).exists() else shutil.which(name)
            if exe is None:
                print(f"{label:<28} (not installed)")
                continue
            measure(label, [str(exe), *peer_args], root, args.runs, count)


if __name__ == "__main__":
    main()
