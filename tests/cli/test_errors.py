"""One error format and the documented exit codes, through the real ``aiagent`` entry point."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# A sub-command that fails the way a bug would: registered like the real ones, run by the
# real ``main`` in a fresh interpreter.
BOOM = """
import sys, click
from aiagent.frontends import cli

@click.command()
@click.option("--kind", default="bug")
def boom(kind):
    if kind == "bug":
        raise KeyError("no such thing")
    if kind == "interrupt":
        raise KeyboardInterrupt
    from aiagent.infra.config.settings import ConfigError
    raise ConfigError("somewhere: something is wrong")

sys.modules["boom_cmd"] = type(sys)("boom_cmd")
sys.modules["boom_cmd"].boom = boom
cli.SUBCOMMANDS["boom"] = ("boom_cmd:boom", "fails on purpose")
cli.main(sys.argv[1:])
"""


def _boom(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BOOM, *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_unexpected_exception_is_one_line_and_exit_5(clean_env: dict[str, str]) -> None:
    proc = _boom("boom", env=clean_env)
    assert proc.returncode == 5
    assert proc.stderr == ("aiagent: error: internal error: KeyError: 'no such thing' "
                           "(run with --debug for the traceback)\n")


@pytest.mark.parametrize("where", ["before", "after", "env"])
def test_debug_shows_the_traceback(clean_env: dict[str, str], where: str) -> None:
    args = {"before": ["--debug", "boom"], "after": ["boom", "--debug"], "env": ["boom"]}[where]
    env = {**clean_env, "AIAGENT_DEBUG": "1"} if where == "env" else clean_env
    proc = _boom(*args, env=env)
    assert proc.returncode == 5
    assert proc.stderr.startswith("Traceback (most recent call last):")
    assert 'line 9, in boom\nKeyError' in proc.stderr
    assert proc.stderr.endswith("aiagent: error: internal error: KeyError: 'no such thing'\n")


def test_expected_errors_keep_their_code_and_line(clean_env: dict[str, str]) -> None:
    proc = _boom("boom", "--kind", "config", env=clean_env)
    assert (proc.returncode, proc.stderr) == (2, "aiagent: error: somewhere: something is wrong\n")


def test_interrupt_is_130(clean_env: dict[str, str]) -> None:
    proc = _boom("boom", "--kind", "interrupt", env=clean_env)
    assert proc.returncode == 130 and proc.stderr.strip() == "aiagent: interrupted"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--no-such-flag"], "aiagent: error: No such option '--no-such-flag'"),
        (["sessions", "list", "--bogus"], "aiagent: error: No such option '--bogus'"),
        (["--max-turns", "0", "-p", "x"], "aiagent: error: Invalid value for '--max-turns'"),
        (["sessions", "nope"], "aiagent: error: No such command 'nope'"),
    ],
)
def test_usage_errors_are_one_line_exit_2(run_cli, args: list[str], line: str) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert proc.stderr.startswith(line) and proc.stderr.count("\n") == 1, proc.stderr
    assert "--help'" in proc.stderr


def test_help_lists_the_exit_codes_and_debug(run_cli) -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    for code in ("0    done", "1    gate failed", "2    usage", "3    provider unavailable",
                 "4    turn limit", "5    internal error", "6    the provider rejected", "130"):
        assert code in proc.stdout
    assert "--debug" in proc.stdout


def test_gate_failure_stays_1_and_is_not_an_error(run_cli, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text('import hashlib\nhashlib.md5(b"x")\n')
    proc = run_cli("security-audit", str(tmp_path), "--fail-on", "low", "--no-cache")
    assert proc.returncode == 1, proc.stderr
    assert "aiagent: error" not in proc.stderr
