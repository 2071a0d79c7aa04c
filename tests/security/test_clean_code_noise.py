"""Issue 27, part 2: noise on clean code. Test keys are fixtures (below high), developer
scripts without outside input are demoted, password rules skip translations and template
bindings, NoSQL injection needs a MongoDB-style call, server-sent events are not XSS."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.engines.security.finding import Finding, Severity
from aiagent.engines.security.pathcontext import default_categories, parse_categories

# a PEM body is only a key when base64 follows the header
KEY = ("-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEpAIBAAKCAQEAx7d9Qk2vN8pLzR4tY6wB3mH1sJ0cF5gU2eK9oD\n" * 4
       + "-----END RSA PRIVATE KEY-----\n")


def _audit(root: Path, files: dict[str, str], scanners: tuple[str, ...] = ()) -> list[Finding]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return run_audit(root, SecurityConfig(), AuditOptions(scanners=scanners, jobs=1)).findings


def _by_file(findings: list[Finding], rule: str) -> dict[str, Finding]:
    return {f.location.file: f for f in findings if f.id == rule}


@pytest.mark.parametrize(("rel", "category", "steps"), [
    ("tests/certs/expired/ca/ca-private.key", "fixture", 2),
    ("tests/certs/mtls/client/client.key", "fixture", 2),
    ("pkg/tests/data/server.pem", "fixture", 2),
    ("tests/fixtures/app.py", "fixture", 2),
    ("tests/test_app.py", "test", 1),
    ("tools/make_tables.py", "script", 1),
    ("scripts/release.py", "script", 1),
    ("web/scripts/build.js", "script", 1),
    ("src/aiagent/agent/tools/shell.py", "source", 1),  # a package's own tools/ is code
    ("certs/server.key", "source", 1),  # the product's own key is not a fixture
])
def test_categories_and_their_steps(rel: str, category: str, steps: int) -> None:
    cats = default_categories()
    assert (cats.category(rel), cats.steps(cats.category(rel))) == (category, steps)


def test_a_category_with_bad_steps_names_the_field() -> None:
    text = '[[category]]\nname = "fixture"\nglobs = ["x/"]\ndemotion_steps = 7\n'
    with pytest.raises(ValueError, match=r"category\[0\]\.demotion_steps: must be an integer"):
        parse_categories(text, "cats.toml")


def test_test_suite_keys_fall_below_high_and_product_keys_stay_critical(tmp_path: Path) -> None:
    found = _by_file(_audit(tmp_path, {"tests/certs/server.key": KEY, "deploy/server.key": KEY},
                            ("secrets",)), "SECRET-PRIVATE-KEY")
    fixture, product = found["tests/certs/server.key"], found["deploy/server.key"]
    assert fixture.severity is Severity.MEDIUM and fixture.path_category == "fixture"
    assert fixture.metadata["original_severity"] == "critical"
    assert product.severity is Severity.CRITICAL and product.path_category == "source"


FIXED_COMMAND = ('import subprocess\nfrom pathlib import Path\n\n'
                 'path = Path("rich/_table.py").resolve()\n'
                 'subprocess.run(f"black {path}", shell=True)\n')
SERVED_COMMAND = ('import os\nfrom flask import Flask, request\napp = Flask(__name__)\n\n'
                  '@app.route("/ping")\ndef ping():\n    os.system("ping " + request.args["h"])\n'
                  '    return "ok"\n')


def test_developer_scripts_without_outside_input_are_demoted(tmp_path: Path) -> None:
    findings = _audit(tmp_path, {"tools/make_tables.py": FIXED_COMMAND, "app.py": FIXED_COMMAND,
                                 "scripts/serve.py": SERVED_COMMAND,
                                 "scripts/deploy.py": 'TOKEN = "ghp_' + "a1B2c3D4e5" * 3 + 'abcdef"\n'})
    cmdi = _by_file(findings, "PY-CMDI-001")
    tool = cmdi["tools/make_tables.py"]
    assert tool.severity is Severity.MEDIUM and tool.path_category == "script"
    assert tool.metadata["demoted_for"] == "script"
    assert cmdi["app.py"].severity is Severity.HIGH  # the same code in the product
    served = cmdi["scripts/serve.py"]  # request data reaches it: an entry point, not demoted
    assert served.severity is Severity.HIGH and served.path_category == "script"
    assert "http" in served.metadata["input"]
    secret = next(f for f in findings if f.location.file == "scripts/deploy.py")
    assert secret.scanner == "secrets" and secret.severity is Severity.CRITICAL


I18N = ('{\n  "MANDATORY_PASSWORD": "Bitte geben Sie ein Passwort an.",\n'
        '  "LABEL_TWO_FACTOR_AUTH_TOKEN": "Zwöi-Faktor-Authentifizierigstoken",\n'
        '  "SHOW_PASSWORD_ADVICE": "パスワードのアドバイスを表示"\n}\n')
CONFIG = '{\n  "db_password": "Zq8#vLx2!pRt9wKe"\n}\n'
TEMPLATE = ('<app-password-strength #passwordStrength [password]="passwordControl.value">'
            '</app-password-strength>\n<my-field :api_key="form.apiKeyValue"></my-field>\n')


@pytest.mark.parametrize("rel", [
    "frontend/src/assets/i18n/de_CH.json", "data/static/i18n/ja_JP.json",
    "config/locales/de.yml", "app/lang/fr.json", "src/main/resources/messages_de.properties",
])
def test_password_rule_skips_translation_files(tmp_path: Path, rel: str) -> None:
    body = I18N if rel.endswith(".json") else 'PASSWORD_LABEL = "Bitte_Passwort_angeben!"\n'
    if rel.endswith(".yml"):
        body = 'de:\n  password_hint: "Mindestens_acht_Zeichen!"\n'
    assert not _by_file(_audit(tmp_path, {rel: body}, ("secrets",)), "SECRET-PASSWORD-ASSIGNMENT")


def test_password_rule_still_fires_on_configuration_and_literal_attributes(tmp_path: Path) -> None:
    found = _by_file(_audit(tmp_path, {
        "config/settings.json": CONFIG, "src/app/login.component.html": TEMPLATE,
        "src/app/legacy.html": '<form data-password="Zq8#vLx2!pRt9wKe"></form>\n'},
        ("secrets",)), "SECRET-PASSWORD-ASSIGNMENT")
    assert set(found) == {"config/settings.json", "src/app/legacy.html"}


SEQUELIZE = """const express = require('express')
const router = express.Router()
router.post('/wallet', async (req, res) => {
  const wallet = await WalletModel.findOne({ where: { UserId: req.body.UserId } })
  await CardModel.update({ owner: req.body.owner }, { where: { id: req.body.cardId } })
  await user.update({ name: req.body.name })
  res.json(wallet)
})
"""
MONGO = """const express = require('express')
const router = express.Router()
router.post('/login', async (req, res) => {
  const user = await User.findOne({ email: req.body.email, password: req.body.password })
  res.json(user)
})
router.patch('/reviews', (req, res) => {
  db.reviewsCollection.update({ _id: req.body.id }, { $set: { message: req.body.message } }, { multi: true })
  res.sendStatus(204)
})
"""
MONGO_WHERE = """function byProduct (id) {
  return db.reviewsCollection.find({ $where: 'this.product == ' + id })
}
module.exports = byProduct
"""


def test_nosql_rule_needs_a_mongodb_style_call(tmp_path: Path) -> None:
    findings = _audit(tmp_path, {"routes/wallet.js": SEQUELIZE, "routes/reviews.js": MONGO,
                                 "lib/reviews.js": MONGO_WHERE}, ("sast",))
    lines = sorted((f.location.file, f.location.start_line) for f in findings
                   if f.id == "JS-NOSQL-001")
    assert lines == [("routes/reviews.js", 4), ("routes/reviews.js", 8)]
    assert [(f.location.file, f.location.start_line) for f in findings
            if f.id == "JS-NOSQL-002"] == [("lib/reviews.js", 2)]


SSE = """const express = require('express')
const app = express()
app.get('/chat', (req, res) => {
  res.setHeader('Content-Type', 'text/event-stream')
  res.write(`data: ${JSON.stringify({ delta: req.query.q })}\\n\\n`)
  res.write('event: done\\n' + 'data: ' + JSON.stringify({ q: req.query.q }) + '\\n\\n')
  res.end()
})
app.get('/echo', (req, res) => {
  res.write('<p>' + req.query.q + '</p>')
  res.end()
})
"""


def test_server_sent_events_are_not_xss_but_html_writes_are(tmp_path: Path) -> None:
    findings = _audit(tmp_path, {"server.js": SSE}, ("sast",))
    assert [f.location.start_line for f in findings if f.id == "JS-XSS-003"] == [10]
