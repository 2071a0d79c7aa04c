"""`aiagent skill test` and `--strict`, the security-rule scaffold audited for real, and a
public SKILL.md collection shaped like anthropics/skills (frontmatter, scripts/,
references/, a top-level reference file, a PDF asset) loading and activating."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

from skill_helpers import make_runtime

from aiagent.agent.skills.tools import ActivateSkillTool
from aiagent.contracts.tools import ToolContext


def write(folder: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(textwrap.dedent(content))
    return folder


def lenient_skill(root: Path) -> Path:
    """Passes its case, but bends the portable format and has untested, broken parts."""
    return write(root / "loose", {
        "SKILL.md": """\
            ---
            name: loose
            description: A skill with warnings.
            argument-hint: "[file]"
            ---
            Read `references/missing.md` first. Never use `run_shell_command` directly.
            """,
        "tests/cases.yaml": """\
            - name: the instructions load
              prompt: true
              expect: {contains: "warnings"}
            - name: a case that cannot fail
              prompt: true
            """,
    })


def test_warnings_are_reported_and_fail_only_under_strict(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    folder = lenient_skill(tmp_path)
    loose = run_cli("skill", "test", str(folder))
    assert loose.returncode == 1  # "the instructions load" expects a word the body lacks
    write(folder, {"tests/cases.yaml": """\
        - name: the instructions load
          prompt: true
          expect: {contains: "references/missing.md"}
        - name: a case that cannot fail
          prompt: true
        """})
    plain = run_cli("skill", "test", str(folder))
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "2 passed, 0 failed, 4 warnings" in plain.stdout
    for piece in ("not portable: frontmatter argument-hint", "Gemini CLI's tool `run_shell_command`",
                  "refer to references/missing.md", "'a case that cannot fail' has no expect"):
        assert "warning: " in plain.stderr and piece in plain.stderr, (piece, plain.stderr)
    strict = run_cli("skill", "test", str(folder), "--strict")
    assert strict.returncode == 1 and "(--strict: failing)" in strict.stdout
    assert strict.stderr.count("FAIL: ") == 4


def test_strict_flags_untested_tools(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    folder = write(tmp_path / "two-tools", {
        "SKILL.yaml": """\
            name: two-tools
            version: 1.0.0
            description: Two tools, one tested.
            types: [tool]
            implementation: {backend: starlark, entrypoint: skill.star}
            tools: [{name: one}, {name: two}]
            """,
        "skill.star": 'register_tool("one", lambda i: "1")\nregister_tool("two", lambda i: "2")\n',
        "tests/cases.yaml": '- {name: one works, tool: one, args: {}, expect: {contains: "1"}}\n',
    })
    assert run_cli("skill", "test", str(folder)).returncode == 0
    strict = run_cli("skill", "test", str(folder), "--strict")
    assert strict.returncode == 1 and "tool two has no test case" in strict.stderr


def test_no_tests_fails_with_or_without_strict(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    folder = write(tmp_path / "untested", {"SKILL.md": "---\nname: untested\ndescription: No tests.\n---\nBody.\n"})
    for extra in ((), ("--strict",)):
        proc = run_cli("skill", "test", str(folder), *extra)
        assert proc.returncode == 1 and "no test cases in tests/*.yaml" in proc.stderr
        assert proc.stderr.startswith("aiagent: error: ") and "Traceback" not in proc.stderr


def test_broken_manifest_is_one_line(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    folder = write(tmp_path / "bad", {"SKILL.yaml": "name: bad\nversion: 1.0.0\ndescription: x\ntypes: [teleport]\n"})
    proc = run_cli("skill", "test", str(folder), "--strict")
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1 and "types[0]" in proc.stderr


def test_scaffolded_security_rule_skill_audits_cleanly(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    created = run_cli("skill", "create", "debug-flags", "--type", "security-rule", "--dir", str(tmp_path / "skills"))
    assert created.returncode == 0, created.stderr
    skill = tmp_path / "skills/debug-flags"
    assert "category: misconfiguration" in (skill / "rules/sast.yaml").read_text()
    tested = run_cli("skill", "test", str(skill), "--strict")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    app = write(tmp_path / "app", {"settings.py": "DEBUG = True\n", "safe.py": "DEBUG = False\n"})
    audit = run_cli("security-audit", str(app), "--skills", str(skill), "--approve-skills", "debug-flags",
                    "-o", "json", "--offline", timeout=180)
    assert audit.returncode in (0, 1), audit.stderr  # 2 was: category 'configuration' rejected
    findings = json.loads(audit.stdout)["findings"]
    hits = [f for f in findings if f["id"] == "DEBUG_FLAGS-001"]
    assert hits and {f["location"]["file"] for f in hits} == {"settings.py"}
    assert all(f["category"] == "misconfiguration" for f in hits)


PDF = b"%PDF-1.7\n%\xb5\xb5\xb5\xb5\n1 0 obj\n<</Type/Catalog>>\nendobj\nstream\n\x00\x9c\xff\nendstream\n%%EOF\n"


def collection(root: Path) -> Path:
    """A collection laid out like anthropics/skills: one folder per skill under skills/,
    SKILL.md with name/description (and a license field), scripts/, references/, a
    reference file beside SKILL.md, and binary assets. Text written for this test."""
    write(root / "skills/pdf", {
        "SKILL.md": """\
            ---
            name: pdf
            description: Work with PDF files - extract text and tables, fill forms, merge and split. Use when a task involves a .pdf file.
            license: Proprietary. See LICENSE.txt
            ---
            # PDF processing
            For form filling read [FORMS.md](FORMS.md). The field reference is `reference.md`.
            Run `scripts/check_fields.py FILE` to list fillable fields.
            """,
        "FORMS.md": "# Filling forms\n1. List the fields.\n2. Fill them.\n",
        "reference.md": "# Reference\nAcroForm field types.\n",
        "LICENSE.txt": "license text",
        "scripts/check_fields.py": "import sys\nprint(sys.argv[1:])\n",
        "assets/sample-form.pdf": PDF,
    })
    write(root / "skills/brand-guidelines", {
        "SKILL.md": "---\nname: brand-guidelines\ndescription: Apply the brand colours and type. Use for slides and documents.\n---\n"
                    "Colours are in `references/palette.md`; the logo is `assets/logo.png`.\n",
        "references/palette.md": "# Palette\nprimary: #1f6feb\n",
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
    })
    return root / "skills"


def test_public_collection_shape_loads_and_activates(tmp_path: Path) -> None:
    skills = collection(tmp_path / "collection")
    project = tmp_path / "project"
    project.mkdir()
    reports: list[str] = []
    rt = make_runtime([skills], project, reports=reports)
    assert sorted(rt.entries) == ["brand-guidelines", "pdf"] and not rt.broken
    tool = ActivateSkillTool(rt)
    ctx = ToolContext(workspace=project, emit=lambda e: None)

    async def go() -> dict[str, str]:
        out = {}
        out["pdf"] = (await tool.run({"name": "pdf"}, ctx)).content
        out["form"] = (await tool.run({"name": "pdf", "resource": "assets/sample-form.pdf"}, ctx)).content
        out["forms"] = (await tool.run({"name": "pdf", "resource": "FORMS.md"}, ctx)).content
        out["brand"] = (await tool.run({"name": "brand-guidelines"}, ctx)).content
        out["logo"] = (await tool.run({"name": "brand-guidelines", "resource": "assets/logo.png"}, ctx)).content
        await rt.close()
        return out

    out = asyncio.run(go())
    listed = [line[2:] for line in out["pdf"].splitlines() if line.startswith("- ")]
    assert listed == ["FORMS.md", "reference.md", "scripts/check_fields.py", "assets/sample-form.pdf"]
    assert "LICENSE.txt" not in listed  # not mentioned by the body
    assert out["form"].startswith("assets/sample-form.pdf is a PDF document") and "scripts/check_fields.py" in out["form"]
    assert "\x00" not in out["form"] and "endobj" not in out["form"]
    assert out["forms"].startswith("# Filling forms")
    assert "- references/palette.md" in out["brand"] and "- assets/logo.png" in out["brand"]
    assert out["logo"].startswith("assets/logo.png is a PNG image")
