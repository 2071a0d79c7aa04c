"""Secrets never leave in audit reports: every secret on a finding's line is masked.

A minified config and a `docker run -e A=… -e B=…` line carry several secrets on one line.
Before, a finding redacted only its own secret and printed the rest of the line raw, so the
other secrets reached the JSON, SARIF and Markdown reports.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GITHUB = "ghp_" + "R8a2kQ7vLm4Tz9Xc1Bn6Hs3Jd5Fg0Wy2Pe7K"
AWS_ID = "AKIA" + "Q3EGRT5KX7NWB2MZ"
AWS_SECRET = "hT3kPq9ZvW2mXa7Lr/4NcB8yDf1Gs" + "6JeQ0uKtYoP"
STRIPE = "sk_live_" + "51Hx7Tq2Lr9Vb4Nc8Md3Kp6Wz"
SLACK = "xoxb-" + "2638461975-4917263850123-Vz7Kq2Lm9Tr4Xc8Bn1Hs6Jd"
ALL = (GITHUB, AWS_ID, AWS_SECRET, STRIPE, SLACK)


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    config = {"github": {"token": GITHUB}, "aws": {"id": AWS_ID, "secret": AWS_SECRET},
              "billing": {"stripe": STRIPE}, "chat": {"slack": SLACK}}
    (root / "config.min.json").write_text(json.dumps(config, separators=(",", ":")) + "\n")
    (root / "deploy.sh").write_text(
        "#!/bin/sh\n"
        f"docker run -e GITHUB_TOKEN={GITHUB} -e AWS_ACCESS_KEY_ID={AWS_ID} "
        f"-e AWS_SECRET_ACCESS_KEY={AWS_SECRET} -e STRIPE_KEY={STRIPE} app:latest\n")
    return root


@pytest.mark.parametrize("fmt", ["json", "sarif", "markdown", "table", "github"])
def test_no_secret_on_a_finding_line_reaches_any_report(run_cli, leaky: Path, fmt: str,
                                                        tmp_path: Path) -> None:
    out = tmp_path / f"report.{fmt}"
    proc = run_cli("security-audit", str(leaky), "--output", fmt, "--out", str(out),
                   "--no-cache")
    assert proc.returncode in (0, 1), proc.stderr
    text = out.read_text() + proc.stdout + proc.stderr
    assert "SECRET-" in text  # the secrets were found ...
    for secret in ALL:  # ... and none of them is printed, whole or as its tail
        assert secret not in text
        assert secret[-12:] not in text


def test_masked_evidence_keeps_a_prefix_and_a_stable_hash(run_cli, leaky: Path,
                                                         tmp_path: Path) -> None:
    reports = []
    for n in range(2):
        out = tmp_path / f"r{n}.json"
        run_cli("security-audit", str(leaky), "--output", "json", "--out", str(out),
                "--no-cache")
        reports.append(json.loads(out.read_text()))
    findings = [f for f in reports[0]["findings"] if f["id"] == "SECRET-GITHUB-TOKEN"]
    assert findings and all("ghp_…#" in f["evidence"] for f in findings)
    prints = [sorted(f["fingerprint"] for f in r["findings"]) for r in reports]
    assert prints[0] == prints[1]


def test_a_clean_line_is_kept_as_it_is() -> None:
    from aiagent.engines.security.redaction import evidence

    line = "subprocess.call(user_input, shell=True)  # see the docs"
    assert evidence(line) == line
    masked = evidence(f"token = '{GITHUB}'; x = 1")
    assert GITHUB not in masked and masked.startswith("token = 'ghp_…#") and "x = 1" in masked
