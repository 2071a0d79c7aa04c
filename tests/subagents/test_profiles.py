"""Reading profiles and narrowing them to the parent (no model, no CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiagent.agent.core.subagents.profiles import (
    BUILTIN_DIR,
    ProfileError,
    folders,
    load_catalog,
    load_profile,
    map_tool,
    narrow_mode,
    narrow_tools,
    resolve_model,
)


def profile_file(tmp_path: Path, text: str, name: str = "p") -> Path:
    path = tmp_path / f"{name}.md"
    path.write_text(text)
    return path


def test_claude_names_groups_and_own_names_map() -> None:
    assert map_tool("Read") == ["read_file"]
    assert map_tool("Bash(git:*)") == ["shell_command"]
    assert map_tool("glob") == ["glob"]
    assert map_tool("search") == ["search", "glob", "grep_files", "ast_search"]  # as --tools
    assert map_tool("read") == ["read_file", "list_dir"]
    assert map_tool("NotebookEdit") is None


def test_tools_as_a_list_or_a_string(tmp_path: Path) -> None:
    listed = load_profile(profile_file(tmp_path, "---\nname: a\ndescription: d\ntools: [Read, glob]\n---\nx"))
    text = load_profile(profile_file(tmp_path, "---\nname: b\ndescription: d\ntools: Read, glob\n---\nx"))
    assert listed.tools == text.tools == ("read_file", "glob")
    omitted = load_profile(profile_file(tmp_path, "---\nname: c\ndescription: d\n---\nx"))
    assert omitted.tools is None and omitted.prompt == "x"


@pytest.mark.parametrize(("text", "needle"), [
    ("no front matter", "no front matter"),
    ("---\nname: a\n", "no front matter"),  # never closed
    ("---\nname: a\ndescription: [x\n---\n", "front matter is not valid YAML"),
    ("---\nname: Bad Name\ndescription: d\n---\n", "is not lowercase"),
    ("---\nname: a\n---\n", "description is missing"),
    ("---\nname: a\ndescription: d\ntools: 3\n---\n", "comma-separated"),
    ("---\nname: a\ndescription: d\ndisallowedTools: Frobnicate\n---\n", "refusing the profile"),
])
def test_an_unusable_profile_is_one_line_naming_the_file(tmp_path: Path, text: str,
                                                          needle: str) -> None:
    path = profile_file(tmp_path, text)
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    message = str(err.value)
    assert needle in message and str(path) in message and "\n" not in message


def test_later_folders_win_and_a_broken_file_does_not_hide_others(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "proj"
    for folder, marker in ((user, "USER"), (project / ".claude" / "agents", "CLAUDE"),
                           (project / ".agent" / "agents", "AGENT")):
        folder.mkdir(parents=True)
        (folder / "rev.md").write_text(f"---\nname: rev\ndescription: d\n---\n{marker}")
    (project / ".agent" / "agents" / "bad.md").write_text("---\nname: [\n---\n")
    catalog = load_catalog([BUILTIN_DIR, user, project / ".claude" / "agents",
                            project / ".agent" / "agents"])
    assert catalog.get("rev").prompt == "AGENT" and "general" in catalog.profiles
    with pytest.raises(ProfileError, match="bad.md"):
        catalog.get("bad")
    with pytest.raises(ProfileError, match="known: general, rev"):
        catalog.get("nope")


def test_untrusted_project_folders_are_not_listed() -> None:
    places = folders(home=Path("/h"), config_dir=Path("/c"), project=None)
    assert places == [BUILTIN_DIR, Path("/h/.claude/agents"), Path("/c/agents")]


def test_tools_only_narrow(tmp_path: Path) -> None:
    profile = load_profile(profile_file(
        tmp_path, "---\nname: a\ndescription: d\ntools: Read, Grep, Write\n"
                  "disallowedTools: Read\n---\n"))
    chosen, notes = narrow_tools(profile, ["read_file", "search", "shell_command"])
    assert chosen == ["search"]  # Read disallowed, Write not the parent's, grep_files neither
    assert notes == ["agent a: tool Write dropped: the parent agent does not have it"]


@pytest.mark.parametrize(("asked", "parent", "mode", "warned"), [
    ("plan", "prompt", "read-only", False),
    ("read-only", "full-auto", "read-only", False),
    ("acceptEdits", "full-auto", "auto-edit", False),
    ("default", "prompt", None, False),  # the same mode: the parent's policy as it is
    ("acceptEdits", "prompt", None, True),
    ("full-auto", "auto-edit", None, True),
    ("bypassPermissions", "full-auto", None, True),
    ("dontAsk", "read-only", None, True),
    ("sudo", "prompt", None, True),
])
def test_modes_only_narrow(tmp_path: Path, asked: str, parent: str, mode: str | None,
                           warned: bool) -> None:
    profile = load_profile(profile_file(
        tmp_path, f"---\nname: a\ndescription: d\npermissionMode: {asked}\n---\n"))
    got, notes = narrow_mode(profile, parent)
    assert got == mode and bool(notes) == warned


def test_models(tmp_path: Path) -> None:
    def model(value: str, provider: str) -> tuple[str, list[str]]:
        profile = load_profile(profile_file(
            tmp_path, f"---\nname: a\ndescription: d\nmodel: {value}\n---\n"))
        return resolve_model(profile, provider, "parent-model")

    assert model("inherit", "openai") == ("parent-model", [])
    assert model("haiku", "anthropic") == ("claude-haiku-4-5", [])
    chosen, notes = model("haiku", "ollama")
    assert chosen == "parent-model" and "means nothing on ollama" in notes[0]
    assert model("qwen3:8b", "ollama") == ("qwen3:8b", [])
