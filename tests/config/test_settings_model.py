"""The settings model (schema.json): defaults in one place, types, limits and unknown keys
checked at load, for files and environment variables alike."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aiagent.infra.config import schema
from aiagent.infra.config.settings import ConfigError, Settings


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg"), **extra}


def _user_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "xdg/aiagent/config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _error(tmp_path: Path, text: str) -> str:
    path = _user_file(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        Settings.load(tmp_path, env=_env(tmp_path))
    message = str(info.value)
    assert message.startswith(f"{path}:") and "\n" not in message
    assert info.value.exit_code == 2
    return message[len(str(path)):]


def test_schema_is_valid_json_schema_and_its_defaults_fit_it() -> None:
    raw = json.loads(resources.files("aiagent.infra.config").joinpath("schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(raw)
    defaults = schema.defaults()
    assert schema.first_problem(defaults) is None
    assert not list(jsonschema.Draft202012Validator(raw).iter_errors(defaults))
    assert defaults["agent"]["max_turns"] == 50 and defaults["tools"]["allow_outside_workspace"] is False


CASES: list[dict[str, Any]] = [
    {}, {"agent": {"max_turns": 3}}, {"agent": {"max_turns": 0}}, {"agent": {"max_turns": 2.5}},
    {"agent": {"max_turns": True}}, {"agent": {"timeout": 1.5}}, {"tools": {"allow_outside_workspace": "false"}},
    {"tools": {"allow_outside_workspace": True}}, {"tools": {"shell": {"timout": 3}}},
    {"tools": {"shell": {"env": {"A": "b", "N": 3}}}}, {"tools": {"shell": {"env": {"A": []}}}},
    {"network": {"max_retries": 50}}, {"network": {"connect_timeout": 0}}, {"agnet": {}},
    {"provider": {"openai": {"base_url": "http://x y"}}}, {"provider": {"openai": {"model": ""}}},
    {"provider": {"default": "gemini"}}, {"permissions": {"allow": ["a", ""]}},
    {"skills": {"enabled": False}}, {"skills": {"enabled": ["x"]}}, {"skills": {"enabled": 3}},
    {"skills": {"presets": {"lean": {"enabled": ["git"]}}}}, {"skills": {"presets": {"lean": {"x": 1}}}},
    {"skills": {"config": {"s": {"any": [1, {"k": "v"}]}}}}, {"security": {"fail_on": 3}},
    {"wiki": {"anything": 1}}, {"context": {"windows": {"m": 500}}}, {"sandbox": {"backend": "docker"}},
]


@pytest.mark.parametrize("document", CASES)
def test_validator_agrees_with_jsonschema(document: dict[str, Any]) -> None:
    """The start-up validator is small; jsonschema is the reference it must agree with."""
    raw = json.loads(resources.files("aiagent.infra.config").joinpath("schema.json").read_text())
    expected = not list(jsonschema.Draft202012Validator(raw).iter_errors(document))
    assert (schema.first_problem(document) is None) == expected


def test_a_quoted_boolean_is_an_error_not_truthy(tmp_path: Path) -> None:
    message = _error(tmp_path, '[tools]\nallow_outside_workspace = "false"\n')
    assert message == (':2: [tools] allow_outside_workspace: expected true or false, '
                       'got the string "false" (write false without quotes)')


@pytest.mark.parametrize("value", [True, False])
def test_a_real_boolean_is_kept(tmp_path: Path, value: bool) -> None:
    _user_file(tmp_path, f"[tools]\nallow_outside_workspace = {str(value).lower()}\n")
    got = Settings.load(tmp_path, env=_env(tmp_path)).tools.allow_outside_workspace
    assert got is value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[agnet]\nmax_turns = 3\n", ':1: agnet: unknown key (did you mean "agent"?)'),
        ("[tools.shell]\ntimout = 3\n", ':2: [tools.shell] timout: unknown key (did you mean "timeout"?)'),
        ("[sandbox]\nzzz = 1\n", ":2: [sandbox] zzz: unknown key (known: backend, always, network, writable, protected)"),
        ("[network]\nmax_retries = 50\n", ":2: [network] max_retries: must be at most 20, got 50"),
        ("[network]\nconnect_timeout = 0\n", ":2: [network] connect_timeout: must be more than 0, got 0"),
        ("[agent]\nmax_turns = \"7\"\n",
         ':2: [agent] max_turns: expected an integer, got the string "7" (write 7 without quotes)'),
        ("[agent]\nmax_turns = 2.5\n", ":2: [agent] max_turns: expected an integer, got the number 2.5"),
        ('[permissions]\nallow = ["shell:ls",\n  ""]\n', ":2: [permissions] allow[1]: must not be empty"),
        ('[sandbox]\nbackend = "bubblewrp"\n',
         ':2: [sandbox] backend: expected one of "auto", "none", "bubblewrap", "landlock", "seatbelt", '
         'got the string "bubblewrp" (did you mean "bubblewrap"?)'),
        ("[skills]\nenabled = 3\n", ":2: [skills] enabled: expected true or false or a list or a string, "
         "got the integer 3"),
    ],
)
def test_bad_values_name_file_line_table_and_key(tmp_path: Path, text: str, expected: str) -> None:
    assert _error(tmp_path, text) == expected


def test_project_file_is_validated_too(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    path = project / ".agent/config.toml"
    path.parent.mkdir(parents=True)
    path.write_text("[tools.tags]\nmax_rounds = 0\n")
    with pytest.raises(ConfigError, match=r"^.*proj/\.agent/config\.toml:2: \[tools\.tags\] max_rounds: "
                                          r"must be at least 1, got 0$"):
        Settings.load(project, env=_env(tmp_path))


def test_bad_environment_value_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^OLLAMA_HOST: \"a b\" is not in the expected form"):
        Settings.load(tmp_path, env=_env(tmp_path, OLLAMA_HOST="a b"))
    ok = Settings.load(tmp_path, env=_env(tmp_path, OLLAMA_HOST="127.0.0.1:11434"))
    assert ok.provider.ollama.base_url == "127.0.0.1:11434"


def test_code_defaults_match_the_model() -> None:
    """Tools keep dataclass fallbacks for direct use; they must equal the one source."""
    from aiagent.agent.tools.shell.runtime import ShellSettings
    from aiagent.agent.tools.shell.tags import DEFAULT_MAX_RESULT_CHARS, DEFAULT_MAX_ROUNDS

    model = schema.defaults()["tools"]
    shell = ShellSettings()
    assert {f.name: getattr(shell, f.name) for f in fields(shell)} == model["shell"]
    tags = model["tags"]
    assert tags == {"max_rounds": DEFAULT_MAX_ROUNDS, "max_result_chars": DEFAULT_MAX_RESULT_CHARS}


def test_loading_settings_does_not_import_jsonschema(tmp_path: Path) -> None:
    code = ("import sys, pathlib; from aiagent.infra.config.settings import Settings; "
            f"Settings.load(pathlib.Path({str(tmp_path)!r}), env={{'HOME': {str(tmp_path)!r}}}); "
            "print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
