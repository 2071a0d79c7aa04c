"""Finding the tasks of a benchmark folder.

Two layouts are read:

- **Aider's polyglot benchmark** (Exercism exercises): ``LANG/exercises/practice/NAME/`` with
  ``.docs/instructions.md`` (and ``instructions.append.md``), ``.meta/config.json`` naming the
  ``solution``, ``test`` and ``example`` files. The example (a known-good solution) is never
  copied where the agent works; the test files are restored before the check.
- **Terminal-Bench style**: any folder with ``task.yaml`` (its ``instruction``) or ``task.md``
  beside a check script ``run-tests.sh`` (or ``check.sh``). ``solution.sh`` is never copied;
  a ``tests/`` folder is copied in only for the check.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
CHECK_SCRIPTS = ("run-tests.sh", "check.sh")
MAX_DEPTH = 6  # how deep below --tasks a task folder may be


class TaskError(ValueError):
    """A task folder that cannot be used (named, with what is wrong)."""


@dataclass(frozen=True)
class Task:
    key: str  # "python/two-fer": unique within a run, the key of its result
    language: str
    folder: Path
    instructions: str
    editable: tuple[str, ...]  # the files the agent is asked to change
    restored: tuple[str, ...]  # copied from the original again before the check
    hidden: tuple[str, ...]  # never copied where the agent works
    check: str  # a shell command run in the work folder
    needs: tuple[str, ...] = ()  # programs the check needs
    writable: tuple[str, ...] = ()  # caches the sandboxed check may write besides its work folder

    def missing(self) -> list[str]:
        """Programs the check needs and this machine lacks."""
        return [name for name in self.needs if shutil.which(name) is None]


def load_languages(path: Path = HERE / "languages.toml") -> dict[str, dict[str, object]]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def discover(root: Path, languages: dict[str, dict[str, object]], python: str) -> list[Task]:
    """Every task below ``root``, sorted by key."""
    if not root.is_dir():
        raise TaskError(f"{root}: not a folder")
    tasks: dict[str, Task] = {}
    for folder in _candidates(root, 0):
        task = _polyglot(folder, languages, python) if (folder / ".meta" / "config.json").is_file() \
            else _terminal_bench(folder, root)
        if task is not None:
            if task.key in tasks:
                raise TaskError(f"{folder}: a second task named {task.key}")
            tasks[task.key] = task
    return [tasks[key] for key in sorted(tasks)]


def _candidates(folder: Path, depth: int) -> list[Path]:
    if (folder / ".meta" / "config.json").is_file() or _is_terminal_bench(folder):
        return [folder]
    if depth >= MAX_DEPTH:
        return []
    found: list[Path] = []
    for child in sorted(folder.iterdir()):
        if child.is_dir() and not child.is_symlink() and child.name not in {".git", "node_modules"}:
            found += _candidates(child, depth + 1)
    return found


def _is_terminal_bench(folder: Path) -> bool:
    described = (folder / "task.yaml").is_file() or (folder / "task.md").is_file()
    return described and any((folder / name).is_file() for name in CHECK_SCRIPTS)


def _polyglot(folder: Path, languages: dict[str, dict[str, object]], python: str) -> Task | None:
    parts = folder.parts
    language = parts[-4] if len(parts) >= 4 and parts[-3:-1] == ("exercises", "practice") else folder.parent.name
    spec = languages.get(language)
    if spec is None:
        return None
    try:
        files = json.loads((folder / ".meta" / "config.json").read_text(encoding="utf-8"))["files"]
        solution, tests = tuple(files["solution"]), tuple(files["test"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TaskError(f"{folder / '.meta' / 'config.json'}: unreadable files list ({exc})") from None
    hidden = tuple(files.get("example", [])) + tuple(files.get("exemplar", [])) + (".meta",)
    docs = folder / ".docs"
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in
                       (docs / "introduction.md", docs / "instructions.md", docs / "instructions.append.md")
                       if p.is_file())
    if not text.strip():
        raise TaskError(f"{docs}: no instructions")
    check = str(spec["check"]).replace("{python}", python)
    needs = tuple(str(n) for n in spec.get("needs", []))  # type: ignore[attr-defined]
    writable = tuple(str(w) for w in spec.get("writable", []))  # type: ignore[attr-defined]
    return Task(f"{language}/{folder.name}", language, folder, text, solution, tests, hidden, check, needs,
                writable)


def _terminal_bench(folder: Path, root: Path) -> Task:
    if (folder / "task.yaml").is_file():
        try:
            data = yaml.safe_load((folder / "task.yaml").read_text(encoding="utf-8"))
            text = str(data["instruction"]) if isinstance(data, dict) else ""
        except (OSError, yaml.YAMLError, KeyError) as exc:
            raise TaskError(f"{folder / 'task.yaml'}: no readable instruction ({exc})") from None
    else:
        text = (folder / "task.md").read_text(encoding="utf-8")
    if not text.strip():
        raise TaskError(f"{folder}: the task has no instruction")
    script = next(name for name in CHECK_SCRIPTS if (folder / name).is_file())
    relative = folder.relative_to(root)
    language = relative.parts[0] if len(relative.parts) > 1 else "tasks"
    restored = (script, "tests") if (folder / "tests").is_dir() else (script,)
    return Task(f"{language}/{folder.name}", language, folder, text, (), restored,
                ("solution.sh", "tests", script), f"bash {script}")
