"""The typed settings and schema.json describe the same keys; a value the user sets reaches
the typed section; the typed sections are what the code reads (no dotted look-ups)."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

import pytest

from aiagent.infra.config import model, schema
from aiagent.infra.config.settings import ConfigError, Settings

SRC = Path(__file__).resolve().parents[2] / "src" / "aiagent"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg"), **extra}


def _pairs(cls: type, node: dict[str, typing.Any], where: str) -> list[str]:
    """Differences between the fields of ``cls`` and the properties of schema ``node``."""
    root = schema.schema()
    node = schema._resolve(node, root)
    props = node.get("properties", {})
    fields = {f.name for f in dataclasses.fields(cls)}
    problems = [f"{where}.{k}: in schema.json, not typed" for k in sorted(set(props) - fields)]
    problems += [f"{where}.{k}: typed, not in schema.json" for k in sorted(fields - set(props))]
    hints = typing.get_type_hints(cls)
    for name in sorted(fields & set(props)):
        kind = hints[name]
        if dataclasses.is_dataclass(kind):
            problems += _pairs(kind, props[name], f"{where}.{name}")  # type: ignore[arg-type]
    return problems


def test_every_schema_key_is_a_typed_field_and_back() -> None:
    assert _pairs(model.SettingsModel, schema.schema(), "settings") == []


def test_typed_defaults_agree_with_the_schema_defaults(tmp_path: Path) -> None:
    """The dataclass fallbacks (used only when a table is built by hand) equal the one
    source of defaults, schema.json, wherever the schema gives one."""
    built = Settings.load(tmp_path, env=_env(tmp_path)).typed
    bare = model.SettingsModel()
    for section in ("network", "agent", "context", "sandbox", "mcp", "acp"):
        loaded, fallback = getattr(built, section), getattr(bare, section)
        for item in dataclasses.fields(loaded):
            if section == "sandbox" and item.name == "protected":
                continue  # the fallback is empty on purpose: schema.json lists the folders
            if section == "mcp" and item.name == "user_files":
                continue
            assert getattr(loaded, item.name) == getattr(fallback, item.name), (section, item.name)
    for sub in ("search", "repo_map", "lsp", "shell", "tags", "web"):
        assert getattr(built.tools, sub) == getattr(bare.tools, sub), sub


def test_a_value_set_in_a_file_reaches_its_typed_section(tmp_path: Path) -> None:
    config = tmp_path / "xdg/aiagent/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[tools.shell]\ntimeout = 42\nenv = { A = "1" }\n'
                      '[mcp]\nenabled = false\n[provider.openai]\nmax_tokens = 77\n'
                      '[skills]\nenabled = false\n')
    s = Settings.load(tmp_path, env=_env(tmp_path))
    assert s.tools.shell.timeout == 42 and s.tools.shell.env == {"A": "1"}
    assert s.mcp.enabled is False and s.provider.openai.max_tokens == 77
    assert s.skills.on is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.tools.shell.timeout = 1  # type: ignore[misc]


def test_a_bad_flag_value_is_one_line_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^command line: \[agent\] max_turns: expected an integer"):
        Settings.load(tmp_path, {"agent": {"max_turns": "many"}}, env=_env(tmp_path))


def test_secrets_are_masked_in_the_dump_and_not_in_the_repr(tmp_path: Path) -> None:
    config = tmp_path / "xdg/aiagent/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[provider.openai]\napi_key_source = "config"\n'
                      'api_key = "sk-secret-value-1234567890"\n')
    s = Settings.load(tmp_path, env=_env(tmp_path))
    assert s.api_key("openai")[0] == "sk-secret-value-1234567890"
    assert "sk-secret-value" not in repr(s.typed) and "sk-secret-value" not in str(s.masked())


def _dotted_lookups() -> list[str]:
    """``x.get("a.b")`` calls with a dotted string, and ``settings.get(…)`` at all, outside
    infra/config/."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("infra/config/"):
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "get" and node.args):
                continue
            owner = node.func.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            first = node.args[0]
            dotted = isinstance(first, ast.Constant) and isinstance(first.value, str) \
                and "." in first.value and " " not in first.value and name == "settings"
            if dotted or (name == "settings" and isinstance(first, ast.JoinedStr)):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_no_dotted_settings_lookups_outside_config() -> None:
    assert _dotted_lookups() == []


def test_settings_have_no_dotted_get() -> None:
    assert not hasattr(Settings, "get")


def test_front_ends_and_engines_do_not_import_providers() -> None:
    """Which provider a run uses is decided in app/; front-ends and engines never build or
    choose one themselves (an engine may use the structured-answer helper on a provider it
    is handed)."""
    found = []
    for group in ("frontends", "engines"):
        for path in sorted((SRC / group).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module \
                        and node.module.startswith("aiagent.infra.providers") \
                        and node.module != "aiagent.infra.providers.structured":
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {node.module}")
    assert found == []
