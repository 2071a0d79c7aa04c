"""Runtime fixes found when real skill collections were loaded (issue 16): binary files,
files the body names, ``when_to_use``, cuts that say so, same-named skills, lifecycle
hooks at the end of a session, accumulated prompt injections, platform-only skills."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

from skill_helpers import make_runtime

from aiagent.agent.skills.loader import Source, discover
from aiagent.agent.skills.prompting import disclosure, index_text

MAX_LISTED = 50  # aiagent.agent.skills.resources.MAX_LISTED

PDF = (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
       b"stream\n\x00\x01\x02\xff\xfe\x9c\x00x\xda\xed\nendstream\n%%EOF\n")


def run(coro):  # noqa: ANN001, ANN201
    return asyncio.run(coro)


def write(folder: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content))
    return folder


def md_skill(root: Path, name: str, body: str, extra: str = "", files: dict[str, str | bytes] | None = None) -> Path:
    front = f"---\nname: {name}\ndescription: The {name} skill.\n{extra}---\n"
    return write(root / name, {"SKILL.md": front + textwrap.dedent(body), **(files or {})})


def test_binary_resource_is_described_not_returned_as_garbage(tmp_path: Path, project: Path) -> None:
    md_skill(tmp_path / "s", "pdf-forms", "Fill forms; see `assets/form.pdf` and `references/fields.md`.\n",
             files={"assets/form.pdf": PDF, "references/fields.md": "# Fields\nname, date\n",
                    "scripts/fill.py": "print('fill')\n"})
    rt = make_runtime([tmp_path / "s"], project)
    text = rt.read_resource("pdf-forms", "assets/form.pdf")
    assert text.startswith("assets/form.pdf is a PDF document") and "not UTF-8 text" in text
    assert str((tmp_path / "s/pdf-forms/assets/form.pdf").resolve()) in text and "scripts/fill.py" in text
    assert "\ufffd" not in text and "\x00" not in text and "endobj" not in text
    # beside it, a text file of the same skill still reads as text
    assert rt.read_resource("pdf-forms", "references/fields.md").startswith("# Fields\nname, date")


def test_other_binary_formats_and_nul_bytes_are_detected(tmp_path: Path, project: Path) -> None:
    md_skill(tmp_path / "s", "blobs", "Data files.\n", files={
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "assets/raw.bin": b"abc\x00def",
        "assets/latin1.txt": "café".encode("latin-1"), "assets/ok.txt": "naïve ünïcode ✓\n"})
    rt = make_runtime([tmp_path / "s"], project)
    assert "is a PNG image" in rt.read_resource("blobs", "assets/logo.png")
    assert "is a binary file" in rt.read_resource("blobs", "assets/raw.bin")
    assert "is a file in another encoding" in rt.read_resource("blobs", "assets/latin1.txt")
    assert rt.read_resource("blobs", "assets/ok.txt") == "naïve ünïcode ✓\n"


def test_files_the_body_names_outside_resource_folders_are_listed(tmp_path: Path, project: Path) -> None:
    body = """\
        # Forms
        For the field list read [the reference](reference.md); for filling, see `forms.md`.
        Large tables are in docs/tables.csv. Mentioned but absent: `nothere.md`. Not ours: [web](https://x.org/a.md)
        """
    md_skill(tmp_path / "s", "forms", body, files={"reference.md": "ref", "forms.md": "forms",
                                                    "docs/tables.csv": "a,b\n", "unmentioned.md": "x"})
    rt = make_runtime([tmp_path / "s"], project)
    text = disclosure(rt.manifest("forms"), [], [])
    listed = [line[2:] for line in text.splitlines() if line.startswith("- ")]
    assert listed == ["reference.md", "forms.md", "docs/tables.csv"]
    assert rt.read_resource("forms", "forms.md") == "forms"


def test_when_to_use_reaches_the_index(tmp_path: Path, project: Path) -> None:
    md_skill(tmp_path / "s", "changelog", "Write the changelog.\n",
             extra="when_to_use: the user asks for release notes or a CHANGELOG entry\n")
    write(tmp_path / "s/yaml-skill", {"SKILL.yaml": """\
        name: yaml-skill
        version: 1.0.0
        description: Formats YAML.
        when_to_use: a YAML file fails to parse
        types: [prompt]
        prompt: {system_prompt: Format it.}
        """})
    found = discover([Source("project", tmp_path / "s")])
    entry = found.skills["changelog"]
    assert not any("when_to_use" in w for w in entry.warnings), entry.warnings
    text = index_text([e.manifest for e in found.skills.values()])
    assert "- changelog: The changelog skill. Use when: the user asks for release notes or a CHANGELOG entry" in text
    assert "- yaml-skill: Formats YAML. Use when: a YAML file fails to parse" in text


def test_long_file_list_and_long_file_say_they_were_cut(tmp_path: Path, project: Path) -> None:
    files: dict[str, str | bytes] = {f"references/r{i:03d}.md": f"ref {i}" for i in range(MAX_LISTED + 7)}
    files["references/big.md"] = "line of text\n" * 2000
    md_skill(tmp_path / "s", "many", "Many references.\n", files=files)
    rt = make_runtime([tmp_path / "s"], project)
    text = disclosure(rt.manifest("many"), [], [])
    assert f"… and 8 more files not listed (the list stops at {MAX_LISTED})" in text
    big = rt.read_resource("many", "references/big.md")
    limit = rt.manifest("many").prompt.max_context_tokens * 4
    assert big.startswith("line of text") and "[… cut: this is the first" in big
    assert f"{limit:,} characters of references/big.md (25 KB)" in big
    assert len(big) < limit + 400


def test_oversized_skill_md_warns_that_it_was_cut(tmp_path: Path) -> None:
    md_skill(tmp_path / "s", "huge", "x" * 300_000 + "\n")
    found = discover([Source("project", tmp_path / "s")])
    assert any("only the first 262,144 are read" in w for w in found.skills["huge"].warnings)


def test_same_named_skills_say_once_which_wins_and_why(tmp_path: Path, project: Path) -> None:
    md_skill(tmp_path / "user", "dup", "user copy\n")
    md_skill(tmp_path / "proj", "dup", "project copy\n")
    md_skill(tmp_path / "proj", "solo", "alone\n")
    found = discover([Source("user", tmp_path / "user"), Source("project", tmp_path / "proj")])
    from aiagent.agent.skills.host import HostServices
    from aiagent.agent.skills.permissions import MemoryGrantStore, PermissionGate
    from aiagent.agent.skills.runtime import SkillRuntime

    reports: list[str] = []
    rt = SkillRuntime(found, HostServices(root=project), PermissionGate(MemoryGrantStore(), str(project)),
                      report=reports.append)
    run(rt.start(None))
    run(rt.start(None))
    notes = [r for r in reports if "dup" in r]
    assert len(notes) == 1, reports
    note = notes[0]
    assert str(tmp_path / "proj/dup") in note and str(tmp_path / "user/dup") in note
    assert "a project skill wins over a user one" in note
    assert not any("solo" in r for r in reports)
    run(rt.close())


def test_same_source_duplicate_names_the_folder_order(tmp_path: Path) -> None:
    md_skill(tmp_path / "a", "dup", "first\n")
    md_skill(tmp_path / "b", "dup", "second\n")
    found = discover([Source("project", tmp_path / "a"), Source("project", tmp_path / "b")])
    assert "both are project skills, and the folder read later wins" in found.overrides["dup"]
    assert found.skills["dup"].manifest.root == tmp_path / "b/dup"


HOOKS_STAR = """\
def bye(ctx):
    log("warn", "deactivated " + ctx.skill)
    return None

def first(ctx):
    return hook_result(inject_prompt = "Rule one from the start.")

def second(ctx):
    return hook_result(inject_prompt = "Rule two before the prompt.")

register_hook("on_deactivate", bye)
register_hook("on_conversation_start", first)
register_hook("on_before_prompt_build", second)
"""


def hooks_skill(root: Path, name: str, deps: str = "") -> Path:
    return write(root / name, {
        "SKILL.yaml": f"name: {name}\nversion: 1.0.0\ndescription: Hooks.\ntypes: [transform]\n{deps}"
                      "implementation: {backend: starlark, entrypoint: skill.star}\n",
        "skill.star": HOOKS_STAR})


def test_on_deactivate_fires_when_the_session_ends(tmp_path: Path, project: Path) -> None:
    hooks_skill(tmp_path / "s", "base")
    hooks_skill(tmp_path / "s", "top", "dependencies: [{name: base}]\n")
    reports: list[str] = []
    rt = make_runtime([tmp_path / "s"], project, reports=reports)

    async def go() -> None:
        await rt.activate("top")
        await rt.close()

    run(go())
    bye = [r for r in reports if "deactivated" in r]
    assert bye == ["skill top: deactivated top", "skill base: deactivated base"], reports  # dependents first
    assert not rt.active


def test_prompt_injections_accumulate(tmp_path: Path, project: Path) -> None:
    hooks_skill(tmp_path / "s", "injector")
    rt = make_runtime([tmp_path / "s"], project)

    async def go() -> str:
        await rt.activate("injector")
        for _turn in range(3):  # the same texts again: not repeated
            await rt.fire("on_conversation_start", {"conversation": []})
            await rt.fire("on_before_prompt_build", {})
        text = next(f.text for f in rt.prompt_fragments() if f.title == "From skill injector")
        await rt.close()
        return text

    text = run(go())
    assert text == "Rule one from the start.\n\nRule two before the prompt."


def test_injections_are_bounded(tmp_path: Path) -> None:
    from aiagent.agent.skills.hooks import MAX_INJECTED, HookBus

    bus = HookBus()
    for i in range(100):
        bus.inject("s", f"note {i} " + "x" * 1000)
    kept = bus.injected["s"]
    assert sum(map(len, kept)) <= MAX_INJECTED and kept[-1].startswith("note 99 ")


def test_darwin_only_skill_is_unavailable_on_linux(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    import sys

    if sys.platform != "linux":
        import pytest

        pytest.skip("needs linux: checks how a darwin-only skill shows on linux")
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    write(root / ".agent/skills/mac-only", {"SKILL.yaml": """\
        name: mac-only
        version: 1.0.0
        description: Only on macOS.
        types: [prompt]
        prompt: {system_prompt: Mac things.}
        compatibility: {platforms: [darwin]}
        """})
    md_skill(root / ".agent/skills", "anywhere", "Works everywhere.\n")
    rows = {r["name"]: r for r in json.loads(run_cli("skill", "list", "--json", cwd=root).stdout)}
    assert rows["mac-only"]["state"] == "unavailable"
    assert rows["mac-only"]["reason"] == "skill mac-only supports darwin, not linux"
    assert rows["anywhere"]["state"] == "enabled"
    table = run_cli("skill", "list", cwd=root).stdout
    assert "unavailable: skill mac-only supports darwin, not linux" in table
    info = run_cli("skill", "info", "mac-only", cwd=root).stdout
    assert "(project, unavailable)" in info and "supports darwin, not linux" in info
