"""There is one set-up path: only ``aiagent/app/`` builds what an agent is made of and
decides which provider and model a run uses, and nobody changes an Agent from outside except
through its own methods."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "aiagent"

#: calls that build an agent's parts or decide its provider; allowed in app/ only (plus the
#: reasons below)
BUILDERS = {"Agent", "create_provider", "open_session", "PermissionPolicy", "make_policy",
            "create_runtime", "SkillRuntime", "build_agent", "attach_skills", "make_provider",
            "resolve_provider", "ollama_answers", "choose_provider"}


def _in_app(module: str) -> bool:
    return module == "app.py" or module.startswith("app/")
ALLOWED = {
    ("agent/skills/factory.py", "SkillRuntime"): "create_runtime is the runtime's own factory",
    ("engines/security/skillsession.py", "create_runtime"):
        "the security audit loads security-rule skills on their own, no agent",
    ("testing/skills.py", "SkillRuntime"): "SkillHarness runs one skill for its tests, no agent",
    ("testing/skills.py", "create_provider"): "SkillHarness's llm_complete talks to FakeLLM",
}
#: changes to an agent's parts from outside that are not set-up
OUTSIDE_CHANGES = {
    ("frontends/tui/running.py", "agent.conversation"):
        "after Ctrl-C the TUI closes dangling tool calls in the append-only history",
}
#: model requests: the Agent builds its conversation's requests; the others are one-shot
REQUEST_MAKERS = {
    "agent/core/loop.py": "Agent.request(): system prompt + history + offered tools",
    "agent/core/compaction.py": "the one-shot summary request of a compaction",
    "agent/skills/wiring.py": "a skill's llm_complete, a one-shot prompt",
    "infra/providers/structured.py": "one-shot JSON-schema answers (security analyzers, pipelines)",
}
#: methods that change a collection in place
MUTATORS = {"append", "insert", "extend", "remove", "register", "unregister", "clear",
            "update", "pop", "__setitem__"}


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), ast.parse(path.read_text(), str(path))


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _chain(node: ast.expr) -> list[str]:
    """``app.agent.config`` → ["app", "agent", "config"]."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return parts[::-1]


def builder_calls() -> list[str]:
    found = []
    for module, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            if name in BUILDERS and not _in_app(module) and (module, name) not in ALLOWED:
                found.append(f"{module}:{node.lineno}: {name}(…)")
    return sorted(found)


def agent_mutations() -> list[str]:
    """``agent.x = …`` or ``agent.x.append(…)`` (any chain through a name ``agent``)."""
    found = []
    for module, tree in _modules():
        if module == "agent/core/loop.py":
            continue
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in MUTATORS:
                targets = [node.func.value]
            for target in targets:
                # the object changed: the target's owner, or (a mutating call) the target
                owner = target if isinstance(node, ast.Call) else getattr(target, "value", None)
                chain = _chain(owner) if isinstance(owner, ast.expr) else []
                if "agent" in chain and (module, ".".join(_chain(target))) not in OUTSIDE_CHANGES:
                    found.append(f"{module}:{node.lineno}: {'.'.join(_chain(target))}")
    return sorted(found)


def request_makers() -> list[str]:
    found = []
    for module, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node.func) == "CompletionRequest" \
                    and module not in REQUEST_MAKERS:
                found.append(f"{module}:{node.lineno}")
    return sorted(found)


def test_only_app_py_builds_an_agent_or_its_parts() -> None:
    assert builder_calls() == []


def test_the_check_finds_a_builder_call(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("agent = Agent(provider, tools, config)\n")
    (tmp_path / "rogue.py").write_text("from x import create_provider\np = create_provider('a', c)\n")
    globals()["SRC"], saved = tmp_path, SRC
    try:
        assert builder_calls() == ["rogue.py:2: create_provider(…)"]
    finally:
        globals()["SRC"] = saved


def test_nobody_changes_an_agent_from_outside() -> None:
    assert agent_mutations() == []


def test_the_check_finds_a_mutation(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "app.agent.config.model = 'x'\n"
        "agent.hooks.on_close.insert(0, h)\n"
        "agent.system_prompt = 'p'\n"
        "self.agent = agent\n"            # holding an agent is fine
        "agent.use_model('x')\n"          # its own operation is fine
        "names = agent.tools.names()\n")  # reading is fine
    globals()["SRC"], saved = tmp_path, SRC
    try:
        assert agent_mutations() == ["m.py:1: app.agent.config.model",
                                     "m.py:2: agent.hooks.on_close",
                                     "m.py:3: agent.system_prompt"]
    finally:
        globals()["SRC"] = saved


def test_model_requests_are_built_in_known_places_only() -> None:
    assert request_makers() == []
