"""The real `aiagent security-audit --llm` command against FakeLLM on loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from llm_helpers import answer, anthropic_env, finding, make_project, sent_text

from aiagent.testing import FakeLLM, Turn

ONE = ("--llm-analyzers", "taint")  # one analyzer: one request per batch


def audit(run_cli: Any, project: Path, fake: FakeLLM, *args: str) -> Any:
    return run_cli("security-audit", str(project), "--no-cache", "--llm", "--provider",
                   "anthropic", *args, cwd=project, env=anthropic_env(fake))


def report(proc: Any) -> dict[str, Any]:
    assert proc.returncode in (0, 1), proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def by_id(data: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    return [f for f in data["findings"] if f["id"].startswith(prefix)]


def test_valid_findings_are_added_with_tokens_and_cost(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    with FakeLLM([answer(finding())]) as fake:
        proc = audit(run_cli, project, fake, *ONE, "-o", "json")
        sent = [sent_text(r) for r in fake.requests]
    data = report(proc)
    [llm] = by_id(data, "LLM-TAINT-")
    assert llm["id"] == "LLM-TAINT-CWE-89" and llm["scanner"] == "llm-taint"
    assert llm["location"] == {"file": "app.py", "start_line": 8, "end_line": 9,
                               "function": "find_user"}
    assert llm["confidence"] == "high" and llm["metadata"]["llm_confidence"] == "0.90"
    assert llm["evidence"].startswith("query = build_query(uid)")
    assert llm["fingerprint"]
    assert any(f["id"] == "SECRET-AWS-ACCESS-KEY-ID" for f in data["findings"])  # static kept
    meta = data["llm"]
    assert (meta["requests"], meta["findings_added"], meta["errors"]) == (1, 1, [])
    assert meta["usage"]["output_tokens"] == 100 and meta["model"] == "claude-sonnet-4-5"
    assert isinstance(meta["cost_usd"], float) and meta["cost_usd"] > 0
    assert len(sent) == 1 and ' 8| ' in sent[0] and 'path="app.py"' in sent[0]
    # the static finding is given to the model as a hint
    assert "cloud.py:3 SECRET-AWS-ACCESS-KEY-ID" in sent[0]


def test_table_and_sarif_report_the_phase(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    with FakeLLM([answer(finding()), answer(finding())]) as fake:
        table = audit(run_cli, project, fake, *ONE)
        sarif = audit(run_cli, project, fake, *ONE, "-o", "sarif")
    assert table.returncode == 0, table.stderr
    assert "LLM-TAINT-CWE-89" in table.stdout
    assert "LLM phase (anthropic claude-sonnet-4-5; taint): 2 files sent; 1 requests, " \
           "1000 tokens in, 100 out, $" in table.stdout
    run = json.loads(sarif.stdout)["runs"][0]
    assert run["properties"]["llm"]["usage"]["input_tokens"] == 1000
    assert "LLM-TAINT-CWE-89" in [r["ruleId"] for r in run["results"]]


def test_invalid_then_valid(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    bad = Turn(text='{"findings": [{"file": "app.py", "severity": "apocalyptic"}]}')
    with FakeLLM([bad, answer(finding())]) as fake:
        data = report(audit(run_cli, project, fake, *ONE, "-o", "json"))
        reask = sent_text(fake.requests[1])
    assert len(by_id(data, "LLM-TAINT-CWE-89")) == 1
    assert data["llm"]["requests"] == 2 and data["llm"]["errors"] == []
    assert "That answer was not valid: findings[0]: 'start_line' is a required property" in reask


def test_always_invalid_is_reported_and_static_results_stay(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    script = [Turn(text="Sorry, I found nothing to report.")] * 3 + [answer(finding())]
    with FakeLLM(script) as fake:
        proc = audit(run_cli, project, fake, *ONE, "-o", "json", "--fail-on", "critical")
        assert fake.remaining == 1  # two re-asks, then it stops asking
    assert proc.returncode == 1  # the gate: the static critical secret
    data = report(proc)
    assert by_id(data, "LLM-") == []
    assert "SECRET-AWS-ACCESS-KEY-ID" in [f["id"] for f in data["findings"]]
    [error] = data["llm"]["errors"]
    assert error == ("taint (batch 1/1): no valid JSON after 3 attempt(s): "
                     "no JSON value found in the answer")
    assert f"llm: {error}" in data["warnings"]


def test_always_invalid_without_gate_exits_0_and_says_so(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    with FakeLLM([Turn(text="nope")] * 3) as fake:
        proc = audit(run_cli, project, fake, *ONE)
    assert proc.returncode == 0, proc.stderr
    assert "warning: llm: taint (batch 1/1): no valid JSON after 3 attempt(s)" in proc.stdout
    assert "SECRET-AWS-ACCESS-KEY-ID" in proc.stdout


def test_duplicate_of_a_static_finding_is_merged(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    dup = finding("cloud.py", 3, 3, category="secrets-exposure", cwe="CWE-798",
                  title="Hard-coded AWS key", severity="critical")
    other = finding("cloud.py", 5, 6, category="cryptography", cwe="CWE-319",
                    title="S3 client without TLS checks")
    with FakeLLM([answer(dup, other)]) as fake:
        data = report(audit(run_cli, project, fake, "--llm-analyzers", "crypto", "-o", "json"))
    secrets = [f for f in data["findings"] if f["location"]["file"] == "cloud.py"]
    assert [f["id"] for f in secrets] == ["SECRET-AWS-ACCESS-KEY-ID", "LLM-CRYPTO-CWE-319"]
    assert secrets[0]["metadata"]["confirmed_by"] == "llm-crypto"
    assert data["llm"]["duplicates_merged"] == 1 and data["llm"]["findings_added"] == 1


def test_budget_cut_sends_only_the_top_files(run_cli: Any, tmp_path: Path) -> None:
    from aiagent.engines.security.analyzers.catalog import select
    from aiagent.engines.security.analyzers.plan import estimate_tokens, read_source

    project = tmp_path / "proj"
    project.mkdir()
    pad = "".join(f"# line {i} of padding to give the file some weight\n" for i in range(40))
    (project / "top.py").write_text("import hashlib\nfrom flask import request\n"
                                    "def login(db):\n    db.execute(request.args['q'])\n" + pad)
    (project / "mid.py").write_text("import subprocess\n" + pad)
    (project / "low.py").write_text("data = open('x').read()\n" + pad)
    prompt = estimate_tokens(select(("taint",))[0].system)
    top = read_source(project.resolve(), "top.py")
    assert top is not None
    budget = prompt + top.tokens + 10  # room for the top file only
    with FakeLLM([answer(), answer(), answer()]) as fake:
        data = report(audit(run_cli, project, fake, *ONE, "--llm-budget", str(budget), "-o", "json"))
        sent = [sent_text(r) for r in fake.requests]
    assert len(sent) == 1
    assert 'path="top.py"' in sent[0]
    assert "mid.py" not in sent[0] and "low.py" not in sent[0]
    assert data["llm"]["files_sent"] == ["top.py"] and data["llm"]["files_left_out"] == 2
    assert data["llm"]["estimated_tokens"] <= budget


def test_hostile_output_is_rejected_and_the_good_finding_kept(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    (tmp_path / "secret.txt").write_text("outside the project\n")
    huge = finding(title="x" * 10_000_000)
    hostile = [
        finding("../secret.txt", 1, 1),
        finding("/etc/passwd", 1, 1),
        finding(str(project / "app.py"), 8, 9),
        finding("app.py", 8, 1_000_000_000),
        finding("app.py", 9, 8),
        finding(title="\x1b[2J\x1b]0;pwned\x07Injected \x1b[31mred\x1b[0m title", start=13, end=14,
                cwe="CWE-20", category="input-validation"),
    ]
    with FakeLLM([Turn(text=json.dumps({"findings": [huge]}), text_chunks=100),
                  answer(*hostile)]) as fake:
        proc = audit(run_cli, project, fake, *ONE, "-o", "json")
    data = report(proc)
    llm = by_id(data, "LLM-")
    assert [f["title"] for f in llm] == ["Injected red title"]
    assert llm[0]["location"]["file"] == "app.py"
    errors = data["llm"]["errors"]
    assert data["llm"]["findings_rejected"] == 5 and len(errors) == 5
    assert "file '../secret.txt' was not among the files sent" in errors[0]
    assert "file '/etc/passwd' was not among the files sent" in errors[1]
    assert "lines 8-1000000000 are outside app.py (14 lines)" in errors[3]
    assert "lines 9-8 are outside app.py" in errors[4]
    assert data["llm"]["requests"] == 2  # the 10 MB answer was cut and asked again
    assert "outside the project" not in proc.stdout
    assert "\x1b" not in proc.stdout


def test_no_model_is_one_line_and_exit_3(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    proc = run_cli("security-audit", str(project), "--no-cache", "--llm", cwd=project,
                   env={"OLLAMA_HOST": "127.0.0.1:9"})
    assert proc.returncode == 3
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aiagent: error: --llm needs a model: ")
    assert "ANTHROPIC_API_KEY" in lines[0] and "Traceback" not in proc.stderr


def test_without_llm_nothing_is_sent(run_cli: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    with FakeLLM([answer(finding())]) as fake:
        proc = run_cli("security-audit", str(project), "--no-cache", "-o", "json", cwd=project,
                       env=anthropic_env(fake))
        assert fake.requests == []
    data = report(proc)
    assert "llm" not in data and by_id(data, "LLM-") == []


def test_config_enables_the_phase_and_no_llm_turns_it_off(run_cli: Any, tmp_path: Path,
                                                          clean_env: dict[str, str]) -> None:
    project = make_project(tmp_path / "proj")
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[security]\nenable_llm_analysis = true\nllm_analyzers = ["taint"]\n')
    with FakeLLM([answer(finding())]) as fake:
        on = run_cli("security-audit", str(project), "--no-cache", "-o", "json", cwd=project,
                     env=anthropic_env(fake))
        off = run_cli("security-audit", str(project), "--no-cache", "-o", "json", "--no-llm",
                      cwd=project, env=anthropic_env(fake))
        assert len(fake.requests) == 1
    assert len(by_id(report(on), "LLM-TAINT-")) == 1
    assert "llm" not in report(off)
    # enabled by config but no model: the static audit still runs, with a one-line note
    skipped = run_cli("security-audit", str(project), "--no-cache", cwd=project,
                      env={"OLLAMA_HOST": "127.0.0.1:9"})
    assert skipped.returncode == 0 and "SECRET-AWS-ACCESS-KEY-ID" in skipped.stdout
    assert "warning: LLM phase skipped ([security] enable_llm_analysis): " in skipped.stderr
