"""Bad input through the real ``aiagent`` command: one line, the documented exit code, no
traceback — and beside each, the legitimate use still working."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aiagent.testing import FakeLLM, Turn

KEY_ENV = "sk-ant-test-123456"
AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def anthropic(fake: FakeLLM) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": KEY_ENV}


def one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if ln.startswith("aiagent: error:")]
    assert len(lines) == 1, stderr
    return lines[0]


# ---- settings: wrong types, unknown keys --------------------------------------------------


def test_quoted_boolean_in_project_config_stops_the_run(run_cli, tmp_path: Path) -> None:
    config = tmp_path / ".agent" / "config.toml"
    config.parent.mkdir()
    config.write_text('[tools]\nallow_outside_workspace = "false"\n')
    with FakeLLM([Turn(text="never asked")]) as fake:
        proc = run_cli("--headless", "-p", "hi", env=anthropic(fake))
        asked = len(fake.requests)
    assert proc.returncode == 2 and asked == 0
    assert proc.stderr == (f"aiagent: error: {config}:2: [tools] allow_outside_workspace: expected "
                           'true or false, got the string "false" (write false without quotes)\n')


def test_unknown_key_in_user_config_suggests_the_right_one(run_cli, clean_env: dict[str, str]) -> None:
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[agent]\nmax_turn = 5\n")
    proc = run_cli("config", "show")
    assert proc.returncode == 2
    assert one_error_line(proc.stderr) == (
        f'aiagent: error: {config}:2: [agent] max_turn: unknown key (did you mean "max_turns"?)')


def test_bad_environment_override_names_the_variable(run_cli) -> None:
    proc = run_cli("--headless", "-p", "hi", env={"AIAGENT_PROVIDER": "antropic"})
    assert proc.returncode == 2
    assert one_error_line(proc.stderr) == (
        'aiagent: error: AIAGENT_PROVIDER: expected one of "anthropic", "openai", "ollama", got the '
        'string "antropic" (did you mean "anthropic"?)')


def test_correct_settings_run(run_cli, tmp_path: Path) -> None:
    config = tmp_path / ".agent" / "config.toml"
    config.parent.mkdir()
    config.write_text("[tools]\nallow_outside_workspace = false\n[agent]\nmax_turns = 3\n")
    with FakeLLM([Turn(text="fine")]) as fake:
        proc = run_cli("--headless", "-p", "hi", env=anthropic(fake))
    assert (proc.returncode, proc.stdout) == (0, "fine\n"), proc.stderr


# ---- a damaged sessions database ----------------------------------------------------------


def _damage(db: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(db, "r+b") as handle:
        for page in range(1, 4):  # the pages after the header: schema and table roots
            handle.seek(4096 * page)
            handle.write(os.urandom(4096))


def test_damaged_database_is_one_line_for_list_and_run(run_cli, tmp_path: Path,
                                                       clean_env: dict[str, str]) -> None:
    with FakeLLM([Turn(text="saved")] * 3) as fake:
        first = run_cli("--headless", "-p", "remember me", env=anthropic(fake))
        assert first.returncode == 0, first.stderr
        db = Path(clean_env["XDG_DATA_HOME"]) / "aiagent" / "aiagent.db"
        listed = run_cli("sessions", "list")
        assert listed.returncode == 0 and "remember me" in listed.stdout
        _damage(db)
        proc_list = run_cli("sessions", "list")
        proc_run = run_cli("--headless", "-p", "again", env=anthropic(fake))
        proc_continue = run_cli("--headless", "--continue", "-p", "again", env=anthropic(fake))
    for proc in (proc_list, proc_run, proc_continue):
        assert proc.returncode == 2, proc.stderr
        line = one_error_line(proc.stderr)
        assert line.startswith(f"aiagent: error: the sessions database at {db} is damaged (")
        assert f"move it aside (mv '{db}' '{db}.damaged')" in line
    shutil.move(db, db.with_suffix(".db.damaged"))  # what the message says to do
    with FakeLLM([Turn(text="fresh start")]) as fake:
        after = run_cli("--headless", "-p", "hello", env=anthropic(fake))
    assert (after.returncode, after.stdout) == (0, "fresh start\n"), after.stderr


# ---- an unwritable config folder ----------------------------------------------------------


def _without_capabilities() -> None:
    """In the child before ``exec``: give up every capability, so that even root obeys a
    folder's mode (no CAP_DAC_OVERRIDE), as on a locked-down runner."""
    from aiagent.infra.sandbox.landlock import drop_capabilities

    drop_capabilities()


def test_set_key_into_read_only_config_folder(run_cli, clean_env: dict[str, str], tmp_path: Path) -> None:
    """A folder without write permission (no bubblewrap needed: root drops its capabilities)."""
    folder = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    folder.mkdir(parents=True)
    folder.chmod(0o555)
    try:
        proc = subprocess.run([AIAGENT, "config", "set-key", "openai"], input="sk-test-abcdef123456\n",
                              capture_output=True, text=True, env={**clean_env, "PYTHON_KEYRING_BACKEND":
                                                                     "keyring.backends.fail.Keyring"},
                              timeout=60, preexec_fn=_without_capabilities if os.geteuid() == 0 else None)
    finally:
        folder.chmod(0o755)
    assert proc.returncode == 2, proc.stderr
    assert one_error_line(proc.stderr) == (
        f"aiagent: error: cannot save the key: the folder {folder} is not writable (Permission "
        "denied); make it writable, set XDG_CONFIG_HOME to another folder, or set OPENAI_API_KEY "
        "in the environment instead")
    ok = run_cli("config", "set-key", "openai", input="sk-test-abcdef123456\n")
    assert ok.returncode == 0 and (folder / "credentials.toml").is_file(), ok.stderr
    assert (folder / "credentials.toml").stat().st_mode & 0o777 == 0o600


def test_set_key_when_the_config_folder_is_a_file(run_cli, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    proc = run_cli("config", "set-key", "anthropic", input="sk-ant-abcdef123456\n",
                   env={"XDG_CONFIG_HOME": str(blocker)})
    assert proc.returncode == 2
    assert one_error_line(proc.stderr).startswith(
        f"aiagent: error: cannot save the key: the folder {blocker}/aiagent is not writable (Not a directory)")


# ---- invalid custom security rules -------------------------------------------------------

RULE = """rules:
  - id: {rule_id}
    title: custom
    severity: high
    languages: [python]
    pattern:
{pattern}
"""
GOOD_QUERY = '      type: tree-sitter\n      query: "(call function: (identifier) @f (#eq? @f \\"eval\\"))"'


@pytest.mark.parametrize(
    ("rule_id", "pattern", "expected"),
    [
        ("bad-query", '      type: tree-sitter\n      query: "(call function: (identifier) @f"',
         "bad-query.pattern.query (python): "),
        ("bad-node", '      type: tree-sitter\n      query: "(no_such_node) @x"',
         "bad-node.pattern.query (python): "),
        ("bad-regex", '      type: regex\n      match: "eval(("',
         "bad-regex.pattern: invalid regex 'eval((': "),
        ("no-query", "      type: tree-sitter", "no-query.pattern.query: required for type tree-sitter"),
    ],
)
def test_invalid_custom_rule_is_one_line_exit_2(run_cli, tmp_path: Path, rule_id: str, pattern: str,
                                                expected: str) -> None:
    (tmp_path / "app.py").write_text("eval(input())\n")
    policy = tmp_path / ".security.yaml"
    policy.write_text(RULE.format(rule_id=rule_id, pattern=pattern))
    proc = run_cli("security-audit", str(tmp_path), "--no-cache", "-o", "json")
    assert proc.returncode == 2, proc.stdout[-500:]
    assert one_error_line(proc.stderr).startswith(f"aiagent: error: {policy}: {expected}")
    assert proc.stdout == ""


def test_invalid_yaml_in_the_policy_file(run_cli, tmp_path: Path) -> None:
    (tmp_path / ".security.yaml").write_text("rules:\n  - id: x\n   bad: [\n")
    proc = run_cli("security-audit", str(tmp_path), "--no-cache")
    assert proc.returncode == 2
    assert one_error_line(proc.stderr).startswith(f"aiagent: error: {tmp_path / '.security.yaml'}: line ")


def test_valid_custom_rule_finds_its_match(run_cli, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("eval(input())\n")
    (tmp_path / ".security.yaml").write_text(RULE.format(rule_id="CUSTOM-EVAL", pattern=GOOD_QUERY))
    proc = run_cli("security-audit", str(tmp_path), "--no-cache", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    ids = {f["id"] for f in json.loads(proc.stdout)["findings"]}
    assert "CUSTOM-EVAL" in ids


# ---- no Ollama running -------------------------------------------------------------------


def test_no_ollama_running_fails_at_once_with_a_hint(run_cli) -> None:
    """A closed loopback port: one refusal, no retries (they cost 8.7 s before), exit 3."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.monotonic()
    proc = run_cli("--headless", "--provider", "ollama", "-m", "llama3", "-p", "hi",
                   env={"OLLAMA_HOST": f"http://127.0.0.1:{port}"})
    elapsed = time.monotonic() - started
    assert proc.returncode == 3, proc.stderr
    assert "retrying" not in proc.stderr
    assert one_error_line(proc.stderr) == (
        f"aiagent: error: ollama: connection to http://127.0.0.1:{port} refused (nothing listens "
        "there): is Ollama running? start it with `ollama serve`")
    assert elapsed < 6, elapsed  # start-up included, on a loaded machine; no 0.2+1.5+2.3+2.8 s of waits
