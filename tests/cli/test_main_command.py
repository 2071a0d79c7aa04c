"""The real ``aiagent`` command: version, help, config, usage errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiagent import __version__


def test_version(run_cli) -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"aiagent, version {__version__}"


def test_help_lists_commands_and_exit_codes(run_cli) -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    for word in ("--headless", "--prompt", "--tools", "--max-turns", "tools", "config", "130"):
        assert word in proc.stdout


def test_version_and_help_stay_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from aiagent.frontends.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('httpx', 'jsonschema', 'aiagent.agent.core.loop', 'tree_sitter',"
        " 'aiagent.engines.security') if m in sys.modules]\n"
        "print(heavy, file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_config_show_masks_secrets(run_cli, tmp_path: Path) -> None:
    proc = run_cli("config", "show", env={"ANTHROPIC_API_KEY": "sk-ant-supersecret-9876"})
    assert proc.returncode == 0
    assert "supersecret" not in proc.stdout
    assert "****9876" in proc.stdout and "ANTHROPIC_API_KEY" in proc.stdout


def test_config_path(run_cli, clean_env) -> None:
    proc = run_cli("config", "path")
    assert proc.returncode == 0
    assert f"user: {clean_env['XDG_CONFIG_HOME']}/aiagent/config.toml" in proc.stdout


def test_bad_config_is_one_line_exit_2(run_cli, tmp_path: Path) -> None:
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.toml").write_text("[agent]\nmax_turns = 0\n")
    proc = run_cli("--headless", "--prompt", "hi")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "config.toml:2: [agent] max_turns: must be at least 1, got 0" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_flags(run_cli) -> None:
    proc = run_cli("--headless", "--prompt", "x", "--timeout", "soon")
    assert proc.returncode == 2 and "--timeout" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("--headless", "--provider", "gemini", "--prompt", "x")
    assert proc.returncode == 2 and "gemini" in proc.stderr


def test_headless_without_prompt(run_cli) -> None:
    proc = run_cli("--headless")
    assert proc.returncode == 2 and "no prompt" in proc.stderr


def test_missing_anthropic_key_exit_3(run_cli) -> None:
    proc = run_cli("--headless", "--prompt", "hi")
    assert proc.returncode == 3
    assert "ANTHROPIC_API_KEY" in proc.stderr and "Traceback" not in proc.stderr


def test_tools_run_bad_json(run_cli) -> None:
    proc = run_cli("tools", "run", "nope", "--args", "{")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_set_key_writes_a_private_file_used_by_the_next_run(run_cli, clean_env, tmp_path: Path) -> None:
    import json
    import stat

    from aiagent.testing import FakeLLM, Turn

    proc = run_cli("config", "set-key", "anthropic", input="sk-ant-from-file-5678\n")
    assert proc.returncode == 0, proc.stderr
    path = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "credentials.toml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "sk-ant-from-file-5678" not in proc.stdout
    shown = run_cli("config", "show").stdout
    assert "****5678" in shown and "sk-ant-from-file" not in shown
    with FakeLLM([Turn(text="hi")]) as fake:
        run = run_cli("--headless", "--prompt", "x", env={"ANTHROPIC_BASE_URL": fake.url})
        headers = fake.requests[0]["headers"]
    assert run.returncode == 0, run.stderr
    assert {k.lower(): v for k, v in headers.items()}["x-api-key"] == "sk-ant-from-file-5678"
    assert "sk-ant-from-file" not in json.dumps(run.stderr)


def test_version_fast_path_imports_no_click() -> None:
    import subprocess
    import sys

    code = ("import sys; from aiagent.frontends.cli import main; main(['--version']); "
            "print('click' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.startswith("aiagent, version ") and proc.stderr.strip() == "False"


@pytest.mark.parametrize(("typed", "meant"), [("tool", "tools"), ("sesions", "sessions"), ("skills", "skill"),
                                              ("securityaudit", "security-audit")])
def test_an_unknown_command_close_to_a_known_one_gets_did_you_mean(run_cli, typed: str, meant: str) -> None:
    proc = run_cli(typed, "list")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"aiagent: error: no such command {typed!r}; did you mean {meant!r}? "
                                   "(see 'aiagent --help')"), proc.stderr


def test_an_unknown_command_far_from_any_says_so_without_a_guess(run_cli) -> None:
    proc = run_cli("frobnicate")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "aiagent: error: no such command 'frobnicate' (see 'aiagent --help')"
