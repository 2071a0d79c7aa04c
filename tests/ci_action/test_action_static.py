"""action.yml read as data: its shape, the script-injection rule, pinned actions, and
zizmor. Each check is also run on a deliberately broken copy, to show it can fail.

The rule (``injection_problems``): a ``run:`` script of the action contains no ``${{ … }}``
expression, except one whose whole content is a context in TRUSTED (values the runner sets
and no pull request author controls: the action's own path, the runner's temp folder and
OS). Inputs, ``github.event.*``, ``github.head_ref``/``base_ref``, step outputs and anything
else reach scripts only through the step's ``env:``, where the runner passes them as
environment variables and the shell never parses them as code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_runner import EXPR

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
TRUSTED = {"github.action_path", "runner.temp", "runner.os"}
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
ZIZMOR = Path(sys.executable).parent / "zizmor"


def injection_problems(action: dict[str, Any]) -> list[str]:
    problems = []
    for index, step in enumerate(action["runs"]["steps"]):
        for expr in EXPR.findall(str(step.get("run", ""))):
            if expr not in TRUSTED:
                problems.append(f"step {index} ({step.get('name')}): ${{{{ {expr} }}}} in run:")
    return problems


def load(text: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(ACTION.read_text() if text is None else text)
    return data


def test_no_expression_inside_a_script() -> None:
    assert injection_problems(load()) == []


@pytest.mark.parametrize(("inserted", "caught"), [
    ("echo \"${{ github.event.pull_request.title }}\"", True),
    ("echo ${{ inputs.model }}", True),
    ("echo ${{github.head_ref}}", True),
    ("echo \"${{ steps.install.outputs.aiagent }}\"", True),
    ("echo \"${{ github.action_path }}\"", False),  # trusted: set by the runner
])
def test_the_rule_catches_a_bad_copy(inserted: str, caught: bool) -> None:
    text = ACTION.read_text().replace("        set -euo pipefail\n",
                                      f"        set -euo pipefail\n        {inserted}\n", 1)
    assert text != ACTION.read_text()
    assert bool(injection_problems(load(text))) is caught


def test_shape_inputs_outputs() -> None:
    action = load()
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    for step in steps:
        assert ("run" in step) != ("uses" in step)
        if "run" in step:
            assert step["shell"] == "bash"  # required for run steps of a composite action
    assert {"provider", "model", "api-key", "base", "fail-on", "tools", "sarif-file",
            "comment", "version", "install-from", "install"} <= set(action["inputs"])
    assert set(action["outputs"]) == {"sarif-file", "report-file", "findings", "exit-code"}
    ids = {s.get("id") for s in steps}
    text = ACTION.read_text()
    for name, spec in action["outputs"].items():
        m = re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}", spec["value"])
        assert m and m[1] in ids, name
    # every input is used, and only declared inputs are
    used = set(re.findall(r"inputs\.([\w-]+)", text))
    assert used == set(action["inputs"]), used ^ set(action["inputs"])


def test_the_api_key_is_only_an_environment_variable() -> None:
    steps = load()["runs"]["steps"]
    holders = [s["name"] for s in steps if "inputs.api-key" in str(s.get("env", {}))]
    assert holders == ["Review"]
    assert all("inputs.api-key" not in str(s.get("with", {})) for s in steps)


def test_third_party_actions_are_pinned_by_commit() -> None:
    steps = load()["runs"]["steps"]
    uses = [s["uses"] for s in steps if "uses" in s]
    assert uses and all(PINNED.match(u) for u in uses), uses
    upload = next(s for s in steps if s["uses" if "uses" in s else "name"].startswith(
        "github/codeql-action/upload-sarif@"))
    assert set(upload["with"]) == {"sarif_file", "category"}
    assert upload["if"].startswith("always() && ")  # the SARIF goes up even when a step failed
    for line in ACTION.read_text().splitlines():  # the release is named beside the SHA
        if "uses:" in line:
            assert re.search(r"@[0-9a-f]{40}\s+# v\d+\.\d+\.\d+$", line), line


def zizmor(path: Path) -> subprocess.CompletedProcess[str]:
    if not ZIZMOR.exists():
        pytest.fail("needs zizmor: install the test extra (pip install -e '.[test]')")
    return subprocess.run([str(ZIZMOR), "--offline", "--no-progress", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_zizmor_finds_nothing(tmp_path: Path) -> None:
    proc = zizmor(ACTION)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_zizmor_catches_a_broken_copy(tmp_path: Path) -> None:
    bad = tmp_path / "action.yml"
    bad.write_text(ACTION.read_text().replace(
        "        set -euo pipefail\n",
        "        set -euo pipefail\n        echo \"${{ github.event.pull_request.title }}\"\n", 1))
    proc = zizmor(bad)
    assert proc.returncode != 0 and "template-injection" in proc.stdout + proc.stderr


def test_the_projects_own_workflow_rules_agree() -> None:
    """aiagent's own scanner for workflow files (injection, unpinned actions) finds nothing
    here, and finds both in bad copies."""
    from aiagent.engines.security.scanners.config_actions import scan_workflow

    text = ACTION.read_text()
    assert scan_workflow("action.yml", text) == []
    injected = text.replace("        set -euo pipefail\n", "        set -euo pipefail\n"
                            "        echo \"${{ github.event.pull_request.title }}\"\n", 1)
    unpinned = re.sub(r"upload-sarif@[0-9a-f]{40}", "upload-sarif@v4", text)
    assert [f.id for f in scan_workflow("action.yml", injected)] == ["GHA-INJECTION-001"]
    assert [f.id for f in scan_workflow("action.yml", unpinned)] == ["GHA-UNPINNED-001"]


def test_the_docs_use_and_list_the_real_inputs() -> None:
    """docs/ci.md: the usage example passes only inputs the action has, and the table lists
    every input."""
    doc = (ROOT / "docs" / "ci.md").read_text()
    doc = doc[doc.index("## GitHub Action"):doc.index("## GitLab CI template")]
    inputs = set(load()["inputs"])
    blocks = re.findall(r"```yaml\n(.*?)```", doc, re.S)
    usage = [yaml.safe_load(b) for b in blocks if "OWNER/aiagent@v1" in b]
    steps = [s for b in usage for j in b["jobs"].values() for s in j["steps"]
             if s.get("uses") == "OWNER/aiagent@v1"]
    assert steps and all(set(s.get("with") or {}) <= inputs for s in steps)
    listed = set(re.findall(r"^\| `([\w-]+)`(?: / `([\w-]+)`)? \|", doc, re.M))
    assert {name for pair in listed for name in pair if name} == inputs
