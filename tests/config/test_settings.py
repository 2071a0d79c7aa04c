from __future__ import annotations

from pathlib import Path

import pytest

from aiagent.app.provider import resolve_provider as resolve
from aiagent.infra.config.settings import ConfigError, Settings


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg"), **extra}


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults(tmp_path: Path) -> None:
    s = Settings.load(tmp_path, env=_env(tmp_path))
    assert s.provider.default == "anthropic"
    assert s.provider.anthropic.model == "claude-sonnet-4-5"
    assert s.agent.max_turns == 50
    assert [layer.name for layer in s.layers] == ["defaults", "env"]


def test_layers_later_wins(tmp_path: Path) -> None:
    _write(tmp_path / "xdg/aiagent/config.toml", '[provider]\ndefault = "openai"\n'
           '[provider.openai]\nmodel = "user-model"\n[agent]\nmax_turns = 7\n')
    project = tmp_path / "proj"
    _write(project / ".agent/config.toml", "[agent]\nmax_turns = 9\n")
    s = Settings.load(project, env=_env(tmp_path))
    choice = resolve(s)
    assert (choice.name, choice.model, s.agent.max_turns) == ("openai", "user-model", 9)
    s = Settings.load(project, env=_env(tmp_path, AIAGENT_MODEL="env-model"))
    assert resolve(s).model == "env-model"
    s = Settings.load(project, {"agent": {"max_turns": 3}, "provider": {"model": "flag"}},
                      env=_env(tmp_path, AIAGENT_MODEL="env-model"))
    assert (resolve(s).model, s.agent.max_turns) == ("flag", 3)


def test_xdg_config_home_is_honoured(tmp_path: Path) -> None:
    _write(tmp_path / "xdg/aiagent/config.toml", "[agent]\nmax_turns = 11\n")
    assert Settings.load(tmp_path, env=_env(tmp_path)).agent.max_turns == 11


def test_provider_switch_drops_model_of_other_provider(tmp_path: Path) -> None:
    _write(tmp_path / "xdg/aiagent/config.toml", '[provider]\nmodel = "claude-opus"\n')
    s = Settings.load(tmp_path, {"provider": {"default": "ollama"}}, env=_env(tmp_path))
    assert resolve(s).model == "llama3.1"


def test_env_overrides(tmp_path: Path) -> None:
    env = _env(tmp_path, OPENAI_BASE_URL="http://127.0.0.1:9/v1", AIAGENT_PROVIDER="openai",
               OPENAI_API_KEY="sk-test-1234567890", OLLAMA_HOST="127.0.0.1:11434")
    s = Settings.load(tmp_path, env=env)
    cfg = s.provider_config("openai")
    assert (resolve(s).name, cfg.base_url, cfg.api_key) == (
        "openai", "http://127.0.0.1:9/v1", "sk-test-1234567890")
    assert s.provider_config("ollama").base_url == "http://127.0.0.1:11434"


def test_bad_env_provider(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match='^AIAGENT_PROVIDER: expected one of "anthropic", "openai", "ollama", got the string "gemini"$'):
        Settings.load(tmp_path, env=_env(tmp_path, AIAGENT_PROVIDER="gemini"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[agent]\nmax_turns = \n", r"config.toml:2: invalid TOML: "),
        ("[agent]\n\nmax_turns = \"many\"\n",
         r'config.toml:3: \[agent\] max_turns: expected an integer, got the string "many"$'),
        ("[provider]\ndefault = \"anthropic\"\n[provider.openai]\nmodle = \"x\"\n",
         r'config.toml:4: \[provider.openai\] modle: unknown key \(did you mean "model"\?\)$'),
        ("[agent]\napproval_mode = \"yolo\"\n",
         r'config.toml:2: \[agent\] approval_mode: expected one of "read-only", "prompt", '),
        ("agent = 3\n", r"config.toml:1: agent: expected a table, got the integer 3$"),
    ],
)
def test_bad_config_names_file_line_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path / "xdg/aiagent/config.toml", text)
    with pytest.raises(ConfigError, match=message) as info:
        Settings.load(tmp_path, env=_env(tmp_path))
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_masked_hides_secrets(tmp_path: Path) -> None:
    _write(tmp_path / "xdg/aiagent/config.toml",
           '[provider.openai]\napi_key_source = "config"\napi_key = "sk-secret-abcdefgh1234"\n')
    s = Settings.load(tmp_path, env=_env(tmp_path))
    assert s.api_key("openai")[0] == "sk-secret-abcdefgh1234"
    masked = s.masked()["provider"]["openai"]
    assert masked["api_key"] == "****1234" and masked["api_key_source"] == "config"
