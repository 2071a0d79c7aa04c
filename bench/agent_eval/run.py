"""Score aiagent itself on a coding benchmark: Aider's polyglot layout (Exercism exercises with
their tests) or Terminal-Bench style task folders (a description and a check script).

    python bench/agent_eval/run.py --tasks polyglot-benchmark --out eval-out \\
        [--provider openai --model gpt-4.1] [--languages python,go] [--limit 20] \\
        [--max-turns 30] [--timeout 600] [--jobs 2] [--published published.json] \\
        [--check-timeout 600] [--check-sandbox auto] [--unsandboxed-checks]

Each task runs in a fresh copy under OUT/work with the real ``aiagent --headless`` (full-auto,
shell commands sandboxed), two attempts as Aider does (the second sees the failing tests'
output). Each check runs in the same sandbox (only its work folder writable, no network, its
tree killed at ``--check-timeout``); with no sandbox here the run refuses unless
``--unsandboxed-checks``. Results go to OUT/results.sqlite as each task ends, each saying how
its check ran; a re-run skips the tasks already
scored with the same provider and model (``--force`` runs them again). The benchmark itself is
never part of this repository: pass its path. ``--published FILE`` is JSON
``{"label": {"python": 57.3, "all": 52.0}}``: percentages printed beside ours.
The last line is ``pass rate: P/N``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from attempt import Limits, Outcome, agent_env, attempt  # noqa: E402
from checkrun import UNSANDBOXED, CheckMode, choose  # noqa: E402
from results import Results  # noqa: E402
from tasks import Task, TaskError, discover, load_languages  # noqa: E402


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=Path, required=True, help="the benchmark folder")
    ap.add_argument("--out", type=Path, required=True, help="results, work copies and sessions")
    ap.add_argument("--provider", help="passed to aiagent --provider")
    ap.add_argument("--model", help="passed to aiagent --model")
    ap.add_argument("--tools", help="passed to aiagent --tools (default: its default tools)")
    ap.add_argument("--languages", help="comma-separated languages (default: all found)")
    ap.add_argument("--limit", type=int, help="at most this many tasks per language (the first by name)")
    ap.add_argument("--max-turns", type=int, default=30)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per attempt")
    ap.add_argument("--attempts", type=int, default=2, choices=(1, 2))
    ap.add_argument("--jobs", type=int, default=1, help="tasks run at once")
    ap.add_argument("--published", type=Path, help="JSON of published pass rates to print beside ours")
    ap.add_argument("--aiagent", default=_default_aiagent(),
                    help="the aiagent command (default: the one beside this Python, else on PATH)")
    ap.add_argument("--force", action="store_true", help="run tasks already scored again")
    ap.add_argument("--check-timeout", type=float, default=600.0,
                    help="seconds per check; then its whole process tree is killed")
    ap.add_argument("--check-sandbox", default="auto", choices=("auto", "bubblewrap", "landlock", "seatbelt"),
                    help="the sandbox backend the checks run in (default: the first that works)")
    ap.add_argument("--unsandboxed-checks", action="store_true",
                    help="run the checks on this machine without a sandbox (recorded with each result)")
    return ap.parse_args(argv)


def _default_aiagent() -> str:
    beside = Path(sys.executable).with_name("aiagent")
    return str(beside) if beside.is_file() else "aiagent"


def sandbox_line(aiagent: str) -> str:
    """What ``aiagent sandbox check`` says about the sandbox the shell commands run in."""
    try:
        proc = subprocess.run([aiagent, "sandbox", "check"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"sandbox: unknown ({exc})"
    return (proc.stdout.strip().splitlines() or [f"sandbox: unknown ({proc.stderr.strip()[:200]})"])[0]


def select(tasks: list[Task], languages: str | None, limit: int | None) -> list[Task]:
    wanted = {x.strip() for x in languages.split(",")} if languages else None
    chosen: list[Task] = []
    per: dict[str, int] = {}
    for task in tasks:
        if wanted is not None and task.language not in wanted:
            continue
        per[task.language] = per.get(task.language, 0) + 1
        if limit is None or per[task.language] <= limit:
            chosen.append(task)
    return chosen


def checks_line(mode: CheckMode, seconds: float) -> str:
    if not mode.backend:
        return f"checks: {UNSANDBOXED}: they run on this machine with your rights, {seconds:g}s limit"
    return (f"checks: {mode.label} ({mode.detail}): only the work folder writable, no network, "
            f"{seconds:g}s limit")


def run_all(tasks: list[Task], args: argparse.Namespace, results: Results, mode: CheckMode) -> None:
    agent = [args.aiagent] + (["--provider", args.provider] if args.provider else []) \
        + (["--model", args.model] if args.model else []) + (["--tools", args.tools] if args.tools else [])
    limits = Limits(turns=args.max_turns, seconds=args.timeout, attempts=args.attempts,
                    check_seconds=args.check_timeout)
    env = agent_env(args.out / "state")
    todo = [t for t in tasks if args.force or t.key not in results.done()]
    print(sandbox_line(args.aiagent), file=sys.stderr)
    print(checks_line(mode, args.check_timeout), file=sys.stderr)
    print(f"{len(tasks) - len(todo)} of {len(tasks)} tasks already scored; running {len(todo)}", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(attempt, t, args.out / "work" / t.key, agent, env, limits, mode): t
                   for t in todo}
        for future in as_completed(futures):
            outcome = future.result()
            results.record(outcome)
            print(f"{outcome.key}: {outcome.status} (attempts {outcome.attempts}, turns {outcome.turns}, "
                  f"{outcome.seconds:.0f}s)", file=sys.stderr)


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = table.setdefault(row["language"], {"passed": 0, "run": 0, "not_run": 0, "tokens": 0,
                                                   "cost": None, "seconds": 0.0, "first_try": 0})
        if row["status"].startswith("not run"):
            entry["not_run"] += 1
            continue
        entry["run"] += 1
        entry["passed"] += row["passed"]
        entry["first_try"] += int(row["passed"] and row["attempts"] == 1)
        entry["tokens"] += row["input_tokens"] + row["output_tokens"]
        entry["seconds"] += row["seconds"]
        if row["cost_usd"] is not None:
            entry["cost"] = (entry["cost"] or 0.0) + row["cost_usd"]
    return table


def report(rows: list[dict[str, Any]], published: dict[str, dict[str, float]]) -> str:
    table = summarise(rows)
    labels = list(published)
    head = ["language", "passed", "pass %", "1st try %", "tokens", "cost $", "time s", *labels, "not run"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    totals = {"passed": 0, "run": 0}
    for language in sorted(table):
        e = table[language]
        totals["passed"] += e["passed"]
        totals["run"] += e["run"]
        lines.append(_line(language, e, [published[lb].get(language) for lb in labels]))
    lines.append("| " + " | ".join(["all", f"{totals['passed']}/{totals['run']}",
                                     _pct(totals["passed"], totals["run"])] + [""] * (len(head) - 3)) + " |")
    lines.append(checks_summary(rows))
    lines.append(f"pass rate: {totals['passed']}/{totals['run']}")
    return "\n".join(lines)


def checks_summary(rows: list[dict[str, Any]]) -> str:
    """How the scored tasks' checks ran: one way, or how many each way."""
    ways: dict[str, int] = {}
    for row in rows:
        ways[row["checks"]] = ways.get(row["checks"], 0) + 1
    if len(ways) == 1:
        return f"checks: {next(iter(ways))}"
    return "checks: mixed: " + ", ".join(f"{n} {way}" for way, n in sorted(ways.items()))


def _line(language: str, e: dict[str, Any], theirs: list[float | None]) -> str:
    cost = "-" if e["cost"] is None else f"{e['cost']:.4f}"
    cells = [language, f"{e['passed']}/{e['run']}", _pct(e["passed"], e["run"]), _pct(e["first_try"], e["run"]),
             str(e["tokens"]), cost, f"{e['seconds']:.0f}", *("-" if v is None else f"{v:.1f}" for v in theirs),
             str(e["not_run"])]
    return "| " + " | ".join(cells) + " |"


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}" if whole else "-"


def load_published(path: Path | None) -> dict[str, dict[str, float]]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(label): {str(k): float(v) for k, v in rates.items()} for label, rates in data.items()}
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        raise TaskError(f"{path}: expected {{\"label\": {{\"language\": percent}}}} ({exc})") from None


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        published = load_published(args.published)
        mode = choose(args.check_sandbox, args.unsandboxed_checks)
        if shutil.which(args.aiagent) is None:
            raise TaskError(f"{args.aiagent}: no aiagent command there (pass --aiagent)")
        tasks = select(discover(args.tasks, load_languages(), sys.executable), args.languages, args.limit)
    except TaskError as exc:
        print(f"agent_eval: error: {exc}", file=sys.stderr)
        return 2
    if not tasks:
        print(f"agent_eval: error: no tasks found under {args.tasks}", file=sys.stderr)
        return 2
    results = Results(args.out / "results.sqlite", f"{args.provider or 'default'}/{args.model or 'default'}")
    try:
        run_all(tasks, args, results, mode)
        print(report([r for r in results.rows() if r["key"] in {t.key for t in tasks}], published))
    except KeyboardInterrupt:
        print("agent_eval: interrupted; finished tasks are saved, a re-run resumes", file=sys.stderr)
        return 130
    finally:
        results.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Outcome", "main"]
