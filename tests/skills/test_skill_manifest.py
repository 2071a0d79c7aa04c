"""Reading SKILL.yaml and SKILL.md: every example loads; errors name the file and field."""

from __future__ import annotations

from pathlib import Path

import pytest
from skill_helpers import EXAMPLES, FIXTURES

from aiagent.agent.skills.loader import read_skill
from aiagent.agent.skills.manifest import ManifestError, load_manifest


def write(folder: Path, text: str, name: str = "SKILL.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


BASE = "name: demo\nversion: 1.0.0\ndescription: d\ntypes: [prompt]\n"


@pytest.mark.parametrize("folder", sorted(p for p in EXAMPLES.iterdir() if p.is_dir()))
def test_every_example_skill_loads(folder: Path) -> None:
    warnings: list[str] = []
    m = read_skill(folder, warnings)
    assert m.name == folder.name and m.description and not warnings


def test_full_manifest_fields() -> None:
    m = load_manifest(EXAMPLES / "word-tools" / "SKILL.yaml")
    assert m.types == ("tool",) and m.permissions == ("file:read",)
    assert m.implementation and m.implementation.backend == "starlark"
    assert m.tools[0].name == "count_words" and m.tools[0].input_schema["required"] == ["path"]
    assert "todo" in m.triggers.keywords


@pytest.mark.parametrize(
    ("text", "field", "what"),
    [
        ("version: 1.0.0\ndescription: d\ntypes: [prompt]\n", "(top level)", "'name' is missing"),
        (BASE.replace("1.0.0", "1.0"), "version", "not a SemVer version"),
        (BASE.replace("[prompt]", "[prompt, magic]"), "types[1]", "'magic' is not one of"),
        (BASE + "permissions: [teleport]\n", "permissions[0]", "not a known permission"),
        (BASE + "colour: blue\n", "(top level)", "unknown field"),
        (BASE.replace("name: demo", "name: Demo_Skill"), "name", "lowercase letters"),
        (BASE + "dependencies: [{name: x, version: '>>2'}]\n", "dependencies[0].version", "not a version range"),
        (BASE + "prompt: {system_prompt_file: missing.md}\n", "prompt.system_prompt_file", "missing.md not found"),
        (BASE + "tools: [{name: t, input_schema_file: ../../etc/passwd}]\n", "tools[0].input_schema_file", "outside the skill folder"),
        (BASE.replace("[prompt]", "[tool]"), "implementation", "needs an implementation"),
        (BASE + "implementation: {backend: starlark}\n", "implementation.entrypoint", "needs its .star file"),
        ("name: [unclosed\n", "", "invalid YAML"),
    ],
)
def test_errors_name_file_and_field(tmp_path: Path, text: str, field: str, what: str) -> None:
    path = write(tmp_path / "demo", text)
    with pytest.raises(ManifestError) as info:
        load_manifest(path)
    message = str(info.value)
    assert message.startswith(str(path)) and what in message and "\n" not in message
    if field:
        assert f": {field}:" in message


def test_skill_md_is_lenient_and_warns() -> None:
    warnings: list[str] = []
    m = read_skill(FIXTURES / "md-only", warnings)
    assert m.name == "markdown-only" and m.format == "md" and m.types == ("prompt",)
    assert m.allowed_tools == ("Read", "Grep")
    assert "pineapple" in (m.prompt.system_prompt or "")
    text = "\n".join(warnings)
    assert "description: " in text and "characters" in text  # too long, still loaded
    assert "differs from its folder" in text
    assert "argument-hint" not in text  # another engine's field: no noise


def test_skill_md_without_frontmatter_uses_folder_name(tmp_path: Path) -> None:
    write(tmp_path / "plain", "# Plain skill\nDo the thing.\n", "SKILL.md")
    warnings: list[str] = []
    m = read_skill(tmp_path / "plain", warnings)
    assert m.name == "plain" and m.description == "Plain skill" and len(warnings) == 1


def test_skill_md_bad_frontmatter_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "bad", "---\nname: [x\n---\nbody\n", "SKILL.md")
    with pytest.raises(ManifestError, match=rf"^{path}:\d+: frontmatter is not valid YAML"):
        read_skill(tmp_path / "bad", [])


def test_yaml_and_md_together(tmp_path: Path) -> None:
    folder = tmp_path / "both"
    write(folder, BASE.replace("demo", "both"))
    write(folder, "---\nname: both\ndescription: x\n---\nBody instructions.\n", "SKILL.md")
    m = read_skill(folder, [])
    assert m.format == "yaml" and m.prompt and m.prompt.system_prompt == "Body instructions."
