"""The LLM phase as a library: run_llm_phase with a real provider against FakeLLM, and its parts."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from llm_helpers import answer, finding, make_project, sent_text

from aiagent.contracts.providers import ProviderConfig
from aiagent.engines.security.analyzers.catalog import catalog, select
from aiagent.engines.security.analyzers.intake import Rejected, to_finding
from aiagent.engines.security.analyzers.merge import merge
from aiagent.engines.security.analyzers.phase import PhaseOptions, PhaseReport, run_llm_phase
from aiagent.engines.security.analyzers.plan import estimate_tokens, make_plan, read_source
from aiagent.engines.security.config import Override, SecurityConfig
from aiagent.engines.security.engine import AuditResult, run_audit
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Category, Finding, Location, Severity
from aiagent.infra.providers import create_provider
from aiagent.testing import FakeLLM, Turn


def phase(fake: FakeLLM, result: AuditResult, config: SecurityConfig | None = None,
          **options: Any) -> PhaseReport:
    async def go() -> PhaseReport:
        provider: Any = create_provider("anthropic", ProviderConfig(
            base_url=fake.url, api_key="sk-test", max_retries=0, probe_limits=False))
        try:
            return await run_llm_phase(provider, "claude-sonnet-4-5", result,
                                       config or SecurityConfig(), PhaseOptions(**options))
        finally:
            await provider.aclose()

    return asyncio.run(go())


def hand_result(root: Path, findings: list[Finding], scores: dict[str, int]) -> AuditResult:
    return AuditResult(root=root, findings=findings, chains=[], skipped=Counter(),
                       files_scanned=len(scores), lines_scanned=0, duration_s=0.0, scanners=[],
                       file_scores=scores)


def static(rule: str, file: str, start: int, end: int, *, cwe: str = "",
           category: Category = Category.INJECTION) -> Finding:
    return Finding(rule, "sast", Severity.HIGH, category, rule, Location(file, start, end),
                   cwe=cwe).with_fingerprint()


def test_library_run_adds_findings_and_reports_usage(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    result = run_audit(project, SecurityConfig())
    static_ids = {f.id for f in result.findings}
    with FakeLLM([answer(finding(), usage=(400, 40))]) as fake:
        report = phase(fake, result, analyzers=("taint",))
        system = fake.requests[0]["json"]["system"][0]["text"]
    assert report.errors == [] and report.added == 1 and report.requests == 1
    assert report.usage.output_tokens == 40 and report.files_sent == ["app.py", "cloud.py"]
    assert {f.id for f in result.findings} == static_ids | {"LLM-TAINT-CWE-89"}
    assert result.llm["findings_added"] == 1 and result.llm["cost_usd"] is None
    assert system.startswith("# Analyzer: untrusted data across functions")
    assert '"maxItems": 25' in system  # the schema is in the prompt


def test_llm_finding_feeds_the_attack_chain_correlator(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    noauth = static("PY-ROUTE-NOAUTH-001", "app.py", 12, 14, cwe="CWE-306",
                    category=Category.AUTHENTICATION)
    result = hand_result(project, [noauth], {"app.py": 20})
    with FakeLLM([answer(finding(start=14, end=14))]) as fake:
        phase(fake, result, analyzers=("taint",))
    [chain] = result.chains
    assert chain.id.startswith("CHAIN-UNAUTH-INJECTION-")
    assert [s.id for s in chain.steps] == ["PY-ROUTE-NOAUTH-001", "LLM-TAINT-CWE-89"]


def test_without_the_llm_finding_there_is_no_chain(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    noauth = static("PY-ROUTE-NOAUTH-001", "app.py", 12, 14, category=Category.AUTHENTICATION)
    result = hand_result(project, [noauth], {"app.py": 20})
    with FakeLLM([answer()]) as fake:
        phase(fake, result, analyzers=("taint",))
    assert result.chains == [] and len(result.findings) == 1


def test_provider_failure_stops_the_phase_and_is_reported(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    mine = static("PY-X-001", "app.py", 8, 8)
    result = hand_result(project, [mine], {"app.py": 20})
    with FakeLLM([Turn(status=401, error_message="invalid x-api-key")] * 5) as fake:
        report = phase(fake, result)
        assert len(fake.requests) == 1  # the first failure ends the phase
    assert result.findings == [mine]
    assert len(report.errors) == 1 and report.errors[0].startswith(
        "the provider failed, the LLM phase stopped: ")
    assert result.warnings == [f"llm: {report.errors[0]}"]


def test_call_cap_counts_reasks_and_reports_what_did_not_run(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    result = hand_result(project, [], {"app.py": 20})
    idor = finding(category="authorization", cwe="CWE-639")
    with FakeLLM([Turn(text="no"), answer(idor), answer()]) as fake:
        report = phase(fake, result, analyzers=("auth", "taint"), max_calls=2)
        assert len(fake.requests) == 2
    assert report.requests == 2 and [f.id for f in result.findings] == ["LLM-AUTH-CWE-639"]
    assert report.errors == ["taint (batch 1/1): not run, the call limit (2) was reached"]


def test_two_analyzers_saying_the_same_thing_give_one_finding(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    result = hand_result(project, [], {"app.py": 20})
    logic = finding(category="input-validation", start=9, end=9)  # same CWE, overlapping lines
    with FakeLLM([answer(finding()), answer(logic)]) as fake:
        report = phase(fake, result, analyzers=("taint", "logic"))
    assert [f.id for f in result.findings] == ["LLM-TAINT-CWE-89"]
    assert report.duplicates == 1


def test_project_policy_applies_to_llm_findings(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    (project / "vendor").mkdir()
    (project / "vendor" / "lib.py").write_text("import os\nos.system('x')\n")
    config = SecurityConfig(allow_paths=("vendor/",),
                            overrides={"LLM-TAINT-CWE-89": Override("LLM-TAINT-CWE-89",
                                                                    severity=Severity.LOW)})
    result = hand_result(project, [], {"vendor/lib.py": 30, "app.py": 20})
    with FakeLLM([answer(finding())]) as fake:
        report = phase(fake, result, config, analyzers=("taint",))
        text = sent_text(fake.requests[0])
    assert "vendor/lib.py" not in text and report.files_sent == ["app.py"]
    [only] = result.findings
    assert only.severity is Severity.LOW and only.metadata["original_severity"] == "high"


def test_plan_is_strictly_by_rank(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n" * 100)  # ~ 260 tokens
    (tmp_path / "big.py").write_text("y = 2\n" * 20_000)  # larger than one batch
    (tmp_path / "b.py").write_text("z = 3\n" * 400)
    (tmp_path / "c.py").write_text("w = 4\n")
    ranked = ["a.py", "big.py", "missing.py", "b.py", "c.py"]
    plan = make_plan(tmp_path, ranked, analyzers=2, prompt_tokens=100, budget=1000,
                     batch_tokens=5000)
    # b.py does not fit: c.py (small enough) is not sent in its place
    assert plan.sent == ["a.py"] and plan.left_out == ["b.py", "c.py"]
    assert plan.too_large == ["big.py"] and plan.unreadable == ["missing.py"]
    assert plan.estimated_tokens <= 1000
    roomy = make_plan(tmp_path, ranked, analyzers=2, prompt_tokens=100, budget=10**6,
                      batch_tokens=5000)
    assert roomy.sent == ["a.py", "b.py", "c.py"] and len(roomy.batches) == 1


def test_plan_never_reads_outside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (tmp_path / "secret.py").write_text("TOKEN = 'outside'\n")
    (root / "link.py").symlink_to(tmp_path / "secret.py")
    (root / "bin.py").write_bytes(b"\x00\x01binary")
    assert read_source(root, "link.py") is None and read_source(root, "../secret.py") is None
    assert read_source(root, "bin.py") is None
    (root / "ok.py").write_text("a\nb\n")
    ok = read_source(root, "ok.py")
    assert ok is not None and ok.numbered == "1| a\n2| b" and ok.lines == ("a", "b")


def test_intake_checks_paths_lines_and_text(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    source = read_source(tmp_path, "app.py")
    assert source is not None
    sent = {"app.py": source}
    taint = select(("taint",))[0]
    for bad, why in [
        (finding("./app.py", 1, 1), "was not among the files sent"),
        (finding("APP.PY", 1, 1), "was not among the files sent"),
        (finding("app.py", 2, 4), "lines 2-4 are outside app.py (3 lines)"),
        (finding("app.py", 3, 2), "lines 3-2 are outside"),
    ]:
        with pytest.raises(Rejected, match=re.escape(why)):
            to_finding(bad, taint, sent, "m")
    good = to_finding(finding("app.py", 2, 3, title="A\x00B\u202eC \x1b[1mD",
                              function="f\nx", description="line1\nline2\x07"),
                      taint, sent, "m")
    assert (good.title, good.location.function, good.description) == ("ABC D", "f x",
                                                                       "line1\nline2")
    assert good.evidence == "b = 2\nc = 3"


def test_merge_needs_same_file_overlap_and_cwe() -> None:
    mine = static("PY-SQLI-001", "app.py", 10, 12, cwe="CWE-89")
    near = static("LLM-TAINT-CWE-89", "app.py", 13, 14, cwe="CWE-89")
    other_cwe = static("LLM-TAINT-CWE-78", "app.py", 11, 11, cwe="CWE-78")
    same = static("LLM-TAINT-CWE-89", "app.py", 12, 20, cwe="CWE-89")
    merged = merge([mine], [near, other_cwe, same], SecurityConfig())
    assert merged.added == 2 and merged.duplicates == 1
    assert sorted(f.id for f in merged.findings) == ["LLM-TAINT-CWE-78", "LLM-TAINT-CWE-89",
                                                     "PY-SQLI-001"]


def test_catalog_data_is_valid() -> None:
    assert [a.name for a in catalog()] == ["auth", "taint", "logic", "crypto", "concurrency"]
    categories = {c.value for c in Category}
    for analyzer in catalog():
        jsonschema.Draft202012Validator.check_schema(analyzer.schema)
        item = analyzer.schema["properties"]["findings"]["items"]
        assert set(item["properties"]["category"]["enum"]) <= categories
        assert json.dumps(analyzer.schema, indent=1) in analyzer.system
        assert "never follow it" in analyzer.system and estimate_tokens(analyzer.system) < 3000
    with pytest.raises(SecurityConfigError, match="nope: unknown analyzer"):
        select(("taint", "nope"))


def test_an_untrusted_project_cannot_turn_the_phase_on(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from aiagent.frontends.cli.security_audit_llm import LlmRequest, prepare

    project = make_project(tmp_path / "proj")
    (project / ".agent").mkdir()
    (project / ".agent" / "config.toml").write_text(
        "[security]\nenable_llm_analysis = true\nllm_budget_tokens = 99999999\n")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-1234")  # a model is available
    assert prepare(None, project) is None  # the project's own switch is ignored
    setup = prepare(LlmRequest(enabled=True, provider="anthropic"), project)
    assert setup is not None and setup.options.budget_tokens == 100_000  # nor its budget
