"""Real skill folders written into a test project's ``.agent/skills/``."""

from __future__ import annotations

from pathlib import Path

PEEK_YAML = """\
name: peek
version: 0.1.0
description: "Show the first line of a project file"
types: [tool]
permissions: [file:read]
implementation: {backend: starlark, entrypoint: skill.star}
tools:
  - name: first_line
    description: "The first line of a project file"
    input_schema:
      type: object
      properties: {path: {type: string}}
      required: [path]
"""

PEEK_STAR = """\
def first_line(input):
    return "first line: " + read_file(input["path"]).splitlines()[0]

register_tool("first_line", first_line)
"""

SHOUT_YAML = """\
name: shout
version: 0.1.0
description: "Say a word loudly"
types: [workflow]
implementation: {backend: starlark, entrypoint: skill.star}
workflows:
  - name: shout
    description: "Repeat a word in capitals"
    input_schema:
      type: object
      properties: {times: {type: integer, minimum: 1}}
"""

SHOUT_STAR = """\
def shout(input):
    return " ".join(["HEY"] * input.get("times", 1)) + "!"

register_workflow("shout", shout, description = "Repeat a word in capitals")
"""

BROKEN_YAML = "name: broken-one\nversion: not-a-version\ndescription: x\ntypes: [tool]\n"


def write_skill(project: Path, name: str, manifest: str, star: str = "") -> Path:
    folder = project / ".agent" / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.yaml").write_text(manifest)
    if star:
        (folder / "skill.star").write_text(star)
    return folder


def write_peek(project: Path) -> None:
    write_skill(project, "peek", PEEK_YAML, PEEK_STAR)
    (project / "notes.txt").write_text("alpha bravo charlie\nsecond line\n")


def write_all(project: Path) -> None:
    write_peek(project)
    write_skill(project, "shout", SHOUT_YAML, SHOUT_STAR)
    write_skill(project, "broken-one", BROKEN_YAML)
