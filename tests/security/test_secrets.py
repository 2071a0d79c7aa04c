"""Secret rules: each format is found; placeholders, tests and allowlists are not.

Token-shaped strings are assembled at run time so this file holds no real-format secret.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.finding import Confidence
from aiagent.engines.security.scanners.secrets import SecretsScanner
from aiagent.engines.security.scanners.secrets_rules import load_secret_rules

R36 = "Zq8Lw3Np7Rt2Xv6Bn1Mc5Kd9Hf4Gj0Ys8Ua3"  # 36 mixed characters
R40 = "wJ7rXu2Nq9Lp4Tz8Kd1Vb6Hm3Fs5Gy0Ca7Ee2RtP"


def j(*parts: str) -> str:
    return "".join(parts)


CASES = {
    "SECRET-PRIVATE-KEY": j("-----BEGIN RSA ", "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7", R40, "\n"),
    "SECRET-AWS-ACCESS-KEY-ID": j('aws_id = "AKIA', 'Z7VQXK4M2HN6RT3B"'),
    "SECRET-AWS-SECRET-KEY": j('aws_secret_access_key = "', R40, '"'),
    "SECRET-GCP-API-KEY": j('key = "AIza', "Sy", R36[:33], '"'),
    "SECRET-AZURE-STORAGE-KEY": j("DefaultEndpointsProtocol=https;AccountKey=", (R40 * 3)[:86], "=="),
    "SECRET-GITHUB-TOKEN": j('token = "ghp', "_", R36, '"'),
    "SECRET-GITHUB-FINE-GRAINED-TOKEN": j("github", "_pat_", (R36 * 3)[:82]),
    "SECRET-GITLAB-TOKEN": j("glpat", "-", R36[:20]),
    "SECRET-STRIPE-KEY": j("sk", "_live_", R36[:24]),
    "SECRET-SQUARE-TOKEN": j("sq0atp", "-", R36[:22]),
    "SECRET-BRAINTREE-TOKEN": j("access_token$production$", "a1b2c3d4e5f6g7h8", "$", "0123abcd" * 4),
    "SECRET-SLACK-TOKEN": j("xoxb", "-123456789012-", R36[:24]),
    "SECRET-SLACK-WEBHOOK": j("https://hooks.slack.com/services/", "T0ABCDEFG/B0ABCDEFG/", R36[:24]),
    "SECRET-DISCORD-WEBHOOK": j("https://discord.com/api/webhooks/", "123456789012345678/", (R36 * 2)[:68]),
    "SECRET-TELEGRAM-BOT-TOKEN": j("bot = '123456789:AA", R36[:33], "'"),
    "SECRET-OPENAI-KEY": j("sk-proj-", R36[:20], "T3Blbk", "FJ", R36[:20]),
    "SECRET-OPENAI-PROJECT-KEY": j("OPENAI_API_KEY=sk-proj", "-", (R36 * 2)[:48]),
    "SECRET-OPENAI-LEGACY-KEY": j('key = "sk', "-", (R36 * 2)[:48], '"'),
    "SECRET-AZURE-CLIENT-SECRET": j('AZURE_CLIENT_SECRET="', "Ab1", "8Q~", R36[:34], '"'),
    "SECRET-ANTHROPIC-KEY": j("sk-ant-", "api03-", (R36 * 3)[:93], "AA"),
    "SECRET-HUGGINGFACE-TOKEN": j("hf", "_", "ZqLwNpRtXvBnMcKdHfGjYsUaQeWrTyUiOp"),
    "SECRET-GROQ-KEY": j("gsk", "_", (R36 * 2)[:52]),
    "SECRET-NPM-TOKEN": j("//registry.npmjs.org/:_authToken=npm", "_", R36),
    "SECRET-PYPI-TOKEN": j("pypi-AgEIcHlwaS5vcmc", R36, R36[:20]),
    "SECRET-SENDGRID-KEY": j("SG", ".", R36[:22], ".", (R36 * 2)[:43]),
    "SECRET-TWILIO-KEY": j("TWILIO_API_KEY = 'SK", "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "'"),
    "SECRET-JWT": j("eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiIxMjM0NTY3ODkwIn0", ".", R36[:30]),
    "SECRET-CONNECTION-STRING": j('DB = "postgresql://app:', "Wint3r-Sun-88", '@db.internal/shop"'),
    "SECRET-PASSWORD-ASSIGNMENT": j('MAIL_PASSWORD = "', "pr0d-Mail!2024-xq", '"'),
    "SECRET-HIGH-ENTROPY-STRING": j('blob = "', R40, 'Qx', '"'),
}

SAFE = {
    "SECRET-AWS-ACCESS-KEY-ID": 'aws_id = "AKIAIOSFODNN7EXAMPLE"',
    "SECRET-PASSWORD-ASSIGNMENT": 'password = "changeme"\npassword = os.environ["PW"]\napi_key = "<your-api-key>"',
    "SECRET-CONNECTION-STRING": 'DB = "postgresql://user:${DB_PASSWORD}@db/shop"',
    "SECRET-HIGH-ENTROPY-STRING": 'name = "this_is_a_long_but_plain_identifier_name"',
    "SECRET-GITHUB-TOKEN": 'token = "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
}


@lru_cache(maxsize=1)
def scanner() -> SecretsScanner:
    return SecretsScanner()


def scan(text: str, rel: str = "src/settings.py", lang: str = "python", s: SecretsScanner | None = None):
    return (s or scanner()).scan_text(rel, lang, text.encode())


def test_every_rule_has_a_case() -> None:
    assert {r.id for r in load_secret_rules()} == set(CASES)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_finds_its_format(rule_id: str) -> None:
    assert rule_id in [f.id for f in scan(CASES[rule_id])]


@pytest.mark.parametrize("rule_id", sorted(SAFE))
def test_placeholders_are_not_secrets(rule_id: str) -> None:
    assert scan(SAFE[rule_id]) == []


def test_evidence_is_redacted() -> None:
    (finding,) = scan(CASES["SECRET-GITHUB-TOKEN"])
    assert R36 not in finding.evidence and "ghp_…#" in finding.evidence


def test_generic_rules_skip_test_paths_and_specific_rules_lose_confidence() -> None:
    assert scan(CASES["SECRET-PASSWORD-ASSIGNMENT"], rel="tests/test_mail.py") == []
    (finding,) = scan(CASES["SECRET-GITHUB-TOKEN"], rel="tests/test_api.py")
    assert finding.confidence is Confidence.LOW


def test_inline_suppression() -> None:
    assert scan(CASES["SECRET-STRIPE-KEY"] + "  # pragma: allowlist secret") == []


def test_config_allowlist() -> None:
    s = SecretsScanner(SecurityConfig(allow_secrets=("^pr0d-Mail",)))
    assert scan(CASES["SECRET-PASSWORD-ASSIGNMENT"], s=s) == []


def test_overlapping_rules_report_once() -> None:
    findings = scan(j('DATABASE_PASSWORD_URL = "postgresql://app:', "Wint3r-Sun-88", '@db/shop"'))
    assert [f.id for f in findings] == ["SECRET-CONNECTION-STRING"]


def test_line_numbers() -> None:
    text = "a = 1\n\n" + CASES["SECRET-AWS-ACCESS-KEY-ID"] + "\n"
    assert scan(text)[0].location.start_line == 3


def test_private_key_needs_key_material() -> None:
    # code that writes PEM has the header but no key; a key in a comment block or a
    # string literal with escaped newlines is still found
    writer = 'append("-----BEGIN ' + 'PRIVATE KEY-----\\n")\nencodeBase64Lines(keyPair.private.encoded.toByteString())\n'
    assert scan(writer, rel="src/HeldCertificate.kt", lang="kotlin") == []
    body = (R40 + R36)[:64]
    in_comment = " * -----BEGIN " + "PRIVATE KEY-----\n * " + body + "\n * -----END PRIVATE KEY-----\n"
    escaped = 'KEY = "-----BEGIN ' + 'EC PRIVATE KEY-----\\n' + body + '\\n-----END EC PRIVATE KEY-----"\n'
    encrypted = ("-----BEGIN RSA " + "PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
                 "DEK-Info: AES-128-CBC,9F3A61C07B2D48E5\n\n" + body + "\n")
    for text in (in_comment, escaped, encrypted):
        assert [f.id for f in scan(text)] == ["SECRET-PRIVATE-KEY"], text


def test_password_templates_and_echoed_names_are_not_secrets() -> None:
    # string templates build a value from variables; a value that repeats its own name is
    # a dummy — a real literal beside them is still found
    kotlin = 'val usernameAndPassword = "$username:$password"\n'
    php = '<?php $options[CURLOPT_USERPWD] = "$value[0]:$value[1]";\n'
    ruby = 'auth_token = "#{user}:#{token}"\nconfig.secret_key_base = "secret_key_base"\n'
    assert scan(kotlin, rel="src/Credentials.kt", lang="kotlin") == []
    assert scan(php, rel="src/Client.php", lang="php") == []
    assert scan(ruby, rel="lib/app.rb", lang="ruby") == []
    real = ruby + 'db_password = "Xk9$mQ2vRt7pLw"\n'  # `$name` is no interpolation in Ruby
    assert [(f.id, f.location.start_line) for f in scan(real, rel="lib/app.rb", lang="ruby")] == [
        ("SECRET-PASSWORD-ASSIGNMENT", 3)]
    real_kt = kotlin + 'val dbPassword = "Xk9-mQ2vRt7pLw:$user"\n'  # mostly literal
    assert [f.location.start_line for f in scan(real_kt, rel="src/Db.kt", lang="kotlin")] == [2]


def test_docker_command_line_secrets_are_all_found_and_masked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from click.testing import CliRunner

    from aiagent.frontends.cli.security_audit import security_audit

    github, openai = j("ghp", "_", R36), j("sk-proj", "-", (R36 * 2)[:48])
    (tmp_path / "deploy.sh").write_text(
        f"docker run -e GITHUB_TOKEN={github} -e OPENAI_API_KEY={openai} app\n")
    outputs = {fmt: CliRunner().invoke(security_audit, [str(tmp_path), "-o", fmt, "--no-cache"]).output
               for fmt in ("json", "sarif", "markdown")}
    ids = {f["id"] for f in json.loads(outputs["json"])["findings"]}
    assert {"SECRET-GITHUB-TOKEN", "SECRET-OPENAI-PROJECT-KEY"} <= ids
    for fmt, text in outputs.items():
        assert R36 not in text and (R36 * 2)[:48] not in text, fmt
        assert "ghp_" in text, fmt  # the masked form keeps the prefix


def test_unknown_token_shapes_are_masked_in_evidence() -> None:
    from aiagent.engines.security.redaction import redact_secrets

    # too short for the GitLab rule (20+), still a credential's shape: masked anyway
    text = redact_secrets(j("TOKEN=glpat", "-", R36[:18], " and sk-live-", R36[:20]))
    assert R36[:18] not in text and R36[:20] not in text and "glpa…#" in text
