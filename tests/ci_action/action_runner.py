"""Run a composite action (action.yml) the way the GitHub runner does, on this machine.

Each ``run:`` step is written to a file and run with ``bash --noprofile --norc -eo pipefail
FILE`` (what ``shell: bash`` means on a runner), in the workspace, with the job's environment
plus the step's ``env:``, and its own ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` files.
``uses:`` steps are not run: their evaluated ``with:`` is recorded for the test to check.

Expressions: only what action.yml uses is understood, and anything else is an error (so a
test cannot pass by misreading the action): ``${{ context.path }}`` for the contexts
``inputs``, ``github``, ``runner`` and ``steps.<id>.outputs``, and ``if:`` conditions made of
``always()``/``success()``/``failure()`` and ``path == 'literal'`` / ``path != 'literal'``
terms joined by ``&&``. Workflow commands in the log (``::error::``, ``::notice::``) become
annotations, and ``::stop-commands::TOKEN`` … ``::TOKEN::`` is honoured."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PATH = re.compile(r"^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$")
TERM = re.compile(r"^(?P<path>[\w.-]+)\s*(?P<op>==|!=)\s*'(?P<lit>[^']*)'$")
COMMAND = re.compile(r"^::(?P<name>[\w-]+)(?: [^:]*)?::(?P<text>.*)$")


class ExpressionError(Exception):
    """An expression the runner does not understand (the test must fail, not guess)."""


@dataclass
class Step:
    name: str
    kind: str  # run | uses
    outcome: str  # success | failure | skipped
    rc: int | None = None
    log: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    with_: dict[str, str] = field(default_factory=dict)
    uses: str = ""


@dataclass
class Result:
    steps: list[Step]
    outputs: dict[str, str]
    annotations: list[tuple[str, str]]  # (command, text): error, notice, warning

    @property
    def failed(self) -> bool:
        return any(s.outcome == "failure" for s in self.steps)

    @property
    def log(self) -> str:
        return "\n".join(f"--- {s.name} ({s.outcome}, rc={s.rc})\n{s.log}" for s in self.steps)

    def step(self, name: str) -> Step:
        return next(s for s in self.steps if s.name == name)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


class Context:
    def __init__(self, inputs: dict[str, str], github: dict[str, str], runner: dict[str, str]):
        self.data: dict[str, Any] = {"inputs": inputs, "github": github, "runner": runner,
                                     "steps": {}}

    def lookup(self, path: str) -> str:
        if not PATH.match(path):
            raise ExpressionError(f"unsupported expression: {path!r}")
        node: Any = self.data
        parts = path.split(".")
        if parts[0] not in self.data:
            raise ExpressionError(f"unsupported context: {parts[0]!r}")
        for part in parts:
            node = node.get(part, "") if isinstance(node, dict) else ""
        return str(node) if node is not None else ""

    def expand(self, text: str) -> str:
        return EXPR.sub(lambda m: self.lookup(m.group(1)), str(text))

    def condition(self, text: str | None, failed: bool) -> bool:
        if text is None:
            return not failed
        body = EXPR.fullmatch(text.strip())
        expr = body.group(1) if body else text.strip()
        status, ok = False, True
        for term in (t.strip() for t in expr.split("&&")):
            if term in ("always()", "success()", "failure()"):
                status = True
                ok = ok and {"always()": True, "success()": not failed,
                             "failure()": failed}[term]
                continue
            m = TERM.match(term)
            if not m:
                raise ExpressionError(f"unsupported condition term: {term!r}")
            value = self.lookup(m["path"])
            ok = ok and ((value == m["lit"]) == (m["op"] == "=="))
        return ok if status else ok and not failed


def input_values(action: dict[str, Any], given: dict[str, str], ctx: Context) -> dict[str, str]:
    unknown = set(given) - set(action.get("inputs") or {})
    if unknown:
        raise ExpressionError(f"inputs the action does not declare: {sorted(unknown)}")
    values = {}
    for name, spec in (action.get("inputs") or {}).items():
        values[name] = given.get(name, ctx.expand(str((spec or {}).get("default", ""))))
    return values


def parse_outputs(text: str) -> dict[str, str]:
    """``name=value`` lines and ``name<<DELIM`` … ``DELIM`` blocks."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            block = []
            for item in lines:
                if item == delim:
                    break
                block.append(item)
            out[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def annotations(log: str) -> list[tuple[str, str]]:
    found, stopped = [], ""
    for line in log.splitlines():
        if stopped:
            if line == f"::{stopped}::":
                stopped = ""
            continue
        m = COMMAND.match(line)
        if not m:
            continue
        if m["name"] == "stop-commands":
            stopped = m["text"]
        elif m["name"] in ("error", "warning", "notice"):
            found.append((m["name"], m["text"]))
    return found


class Runner:
    def __init__(self, action_dir: Path, workspace: Path, env: dict[str, str],
                 github: dict[str, str], temp: Path) -> None:
        self.action = load(action_dir / "action.yml")
        self.action_dir, self.workspace, self.env, self.temp = action_dir, workspace, env, temp
        self.github = {"action_path": str(action_dir), **github}

    def run(self, inputs: dict[str, str], timeout: float = 120, first: int = 0) -> Result:
        """Run the steps (only the ``first`` ones when given)."""
        ctx = Context({}, self.github, {"temp": str(self.temp), "os": "Linux"})
        ctx.data["inputs"] = input_values(self.action, inputs, ctx)
        assert self.action["runs"]["using"] == "composite"
        steps: list[Step] = []
        specs = self.action["runs"]["steps"]
        for index, spec in enumerate(specs[:first] if first else specs):
            failed = any(s.outcome == "failure" for s in steps)
            name = spec.get("name") or f"step {index}"
            if not ctx.condition(spec.get("if"), failed):
                steps.append(Step(name, "run" if "run" in spec else "uses", "skipped"))
                continue
            step = self._uses(name, spec, ctx) if "uses" in spec else \
                self._run(name, spec, ctx, index, timeout)
            steps.append(step)
            if spec.get("id"):
                ctx.data["steps"][spec["id"]] = {"outputs": step.outputs, "outcome": step.outcome}
        outputs = {k: ctx.expand(v["value"]) for k, v in (self.action.get("outputs") or {}).items()}
        log = "\n".join(s.log for s in steps)
        return Result(steps, outputs, annotations(log))

    def _uses(self, name: str, spec: dict[str, Any], ctx: Context) -> Step:
        with_ = {k: ctx.expand(v) for k, v in (spec.get("with") or {}).items()}
        return Step(name, "uses", "success", with_=with_, uses=spec["uses"])

    def _run(self, name: str, spec: dict[str, Any], ctx: Context, index: int,
             timeout: float) -> Step:
        if spec.get("shell") != "bash":
            raise ExpressionError(f"step {name!r}: only shell: bash is run here")
        if EXPR.search(spec["run"]):
            raise ExpressionError(f"step {name!r}: an expression inside run:")
        folder = self.temp / f"_step{index}"
        folder.mkdir(parents=True, exist_ok=True)
        script, output, summary = folder / "script.sh", folder / "output", folder / "summary"
        script.write_text(spec["run"], encoding="utf-8")
        output.write_text("")
        summary.write_text("")
        env = {**self.env, **{k: ctx.expand(v) for k, v in (spec.get("env") or {}).items()},
               "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)}
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=self.workspace, env=env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        return Step(name, "run", "success" if proc.returncode == 0 else "failure",
                    rc=proc.returncode, log=proc.stdout + proc.stderr,
                    outputs=parse_outputs(output.read_text()), summary=summary.read_text())


def github_env(workspace: Path, event_path: Path, api_url: str, temp: Path,
               event: dict[str, Any], base: dict[str, str] | None = None) -> dict[str, str]:
    """The variables a runner sets for a pull_request job."""
    pr = event["pull_request"]
    env = {**(base or os.environ)}
    env.update(GITHUB_ACTIONS="true", CI="true", GITHUB_EVENT_NAME="pull_request",
               GITHUB_EVENT_PATH=str(event_path), GITHUB_REPOSITORY=event["repository"]["full_name"],
               GITHUB_API_URL=api_url, GITHUB_SERVER_URL="https://github.com",
               GITHUB_WORKSPACE=str(workspace), GITHUB_BASE_REF=pr["base"]["ref"],
               GITHUB_HEAD_REF=pr["head"]["ref"], GITHUB_SHA=pr["head"]["sha"],
               GITHUB_REF=f"refs/pull/{pr['number']}/merge", RUNNER_TEMP=str(temp),
               RUNNER_OS="Linux")
    return env
