"""Progressive disclosure, hooks through the core's hook points, workflows, the security
seam, and the skill-author harness against FakeLLM."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from skill_helpers import EXAMPLES, FIXTURES, make_runtime

from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.prompting import index_text
from aiagent.agent.skills.tools import ActivateSkillTool
from aiagent.agent.skills.wiring import core_hooks
from aiagent.contracts.events import ApprovalRequestEvent
from aiagent.contracts.hooks import ToolCall
from aiagent.contracts.tools import ToolContext, ToolResult
from aiagent.testing.skills import SkillHarness, run_cases


def run(coro):  # noqa: ANN001, ANN201
    return asyncio.run(coro)


def test_index_stays_within_budget() -> None:
    skills = [Manifest(f"skill-{i:02d}", "1.0.0", "does a thing " * 30, ("prompt",), Path("."), Path("x"))
              for i in range(40)]
    text = index_text(skills, 2000)
    assert len(text) <= 2000 and "skill-00" in text and "activate_skill" in text
    assert "skill-39" in text and len(text.splitlines()) == 41
    assert "and 18 more" in index_text(skills, 400) and len(index_text(skills, 400)) <= 400
    assert index_text([], 2000) == ""


def test_activate_skill_tool_discloses_body_resources_and_tools(project: Path) -> None:
    async def go() -> None:
        events: list[Any] = []
        rt = make_runtime([FIXTURES, EXAMPLES], project, approve=())
        tool = ActivateSkillTool(rt)
        assert "python-style" in tool.input_schema["properties"]["name"]["enum"]
        assert "broken" not in tool.input_schema["properties"]["name"]["enum"]
        ctx = ToolContext(workspace=project, emit=events.append)
        result = await tool.run({"name": "python-style"}, ctx)
        assert not result.is_error and "Type every function signature" in result.content
        assert "references/checklist.md" in result.content
        result = await tool.run({"name": "python-style", "resource": "references/checklist.md"}, ctx)
        assert "Review checklist" in result.content
        result = await tool.run({"name": "python-style", "resource": "../../secret"}, ctx)
        assert result.is_error

        def answer(event: Any) -> None:  # the front-end says "once"
            events.append(event)
            if isinstance(event, ApprovalRequestEvent):
                event.answer("once")

        result = await tool.run({"name": "word-tools"}, ToolContext(workspace=project, emit=answer))
        assert not result.is_error and "Tools now available: count_words, find_todos" in result.content
        request = next(e for e in events if isinstance(e, ApprovalRequestEvent))
        assert request.tool == "skill:word-tools" and "file:read" in request.what
        result = await tool.run({"name": "cycle-a"}, ctx)
        assert result.is_error and "cycle-a -> cycle-b -> cycle-a" in result.content
        await rt.close()

    run(go())


def test_prompt_fragments_respect_token_budget(project: Path) -> None:
    async def go() -> None:
        rt = make_runtime([FIXTURES], project)
        assert await rt.user_turn("tell me about zebra naming") == ["kw-prompt"]
        fragments = {f.title: f.text for f in rt.prompt_fragments()}
        assert fragments["Skill: kw-prompt"].startswith("ZEBRA-RULES")
        assert "kw-prompt" not in fragments["Skills"]  # active: out of the index
        assert "no-read" in fragments["Skills"]
        await rt.close()

    run(go())


def test_hooks_through_core_hook_points(project: Path) -> None:
    async def go() -> None:
        reports: list[str] = []
        rt = make_runtime([FIXTURES], project, reports=reports)
        rt.bus.timeout = 2.0
        await rt.activate("hooky")
        hooks = core_hooks(rt)
        call = ToolCall("1", "read_file", {"path": "a"})
        assert await hooks.before_tool_call(call) is None
        assert call.args == {"path": "a", "flag": "added-by-hook"}
        result = await hooks.after_tool_result(call, ToolResult("contents"))
        assert result.content == "[hooked] contents"
        assert any("on_after_tool_result hook failed" in r and "this hook is broken" in r for r in reports)
        assert await hooks.after_response("final") == "final"  # the stalling hook is skipped
        assert any("on_after_response" in r and ("timed out" in r or "time" in r) for r in reports)
        await rt.fire("on_conversation_start", {"conversation": []})
        assert any(f.text == "Injected by hooky." for f in rt.prompt_fragments())
        await rt.close()

    run(go())


def test_transform_and_workflow(project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    for message in ("Add login page", "Fix crash on empty input"):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
                        "-m", message], cwd=project, check=True)

    async def go() -> None:
        async with SkillHarness(EXAMPLES / "response-footer") as h:
            results = await h.fire("on_after_response", {"response": "All done."})
            assert results[0][1].response == "All done.\n\n-- reviewed by aiagent"
        async with SkillHarness(EXAMPLES / "release-notes", project=project, llm=["## Features\n- Login page"]) as h:
            result = await h.run_workflow("release-notes", {"commits": 5})
            assert not result.is_error and result.content == "## Features\n- Login page"
            prompt = h.fake.requests[0]["json"]["messages"][0]["content"]
            assert "Fix crash on empty input" in str(prompt) and "Group them" in str(prompt)
            bad = await h.run_workflow("release-notes", {"commits": 0})
            assert bad.is_error and "input" in bad.content

    run(go())


def test_security_seam(project: Path) -> None:
    async def go() -> None:
        rt = make_runtime([FIXTURES], project)
        rules = rt.security_rules()
        assert [(r.skill, r.kind, r.path.name) for r in rules] == [("sec-rules", "sast", "sast.yaml")]
        assert rt.security_scanners() == []
        assert await rt.activate_security_skills() == ["sec-rules"]
        scanner = rt.security_scanners()[0]
        assert (scanner.skill, scanner.name) == ("sec-rules", "banned")
        assert await scanner.run({}) == [{"rule": "BANNED-001", "file": "main.py", "line": 2}]
        await rt.close()

    run(go())


def test_invoke_skill_between_skills(tmp_path: Path, project: Path) -> None:
    base = tmp_path / "skills"
    for name, perms, body in (
        ("callee", "[]", "def shout(args):\n    return args['word'].upper()\n"),
        ("caller", "[skill:invoke]", "def f(x):\n    return invoke_skill('callee', 'shout', {'word': x['w']}) + '!'\n\n"
                                     "register_tool('yell', f)\n"),
        ("rude", "[]", "def f(x):\n    return invoke_skill('callee', 'shout', {'word': 'x'})\n\nregister_tool('rude', f)\n"),
    ):
        (base / name).mkdir(parents=True)
        (base / name / "SKILL.yaml").write_text(
            f"name: {name}\nversion: 1.0.0\ndescription: d\ntypes: [tool]\npermissions: {perms}\n"
            "implementation: {backend: starlark, entrypoint: s.star}\n")
        (base / name / "s.star").write_text(body)

    async def go() -> None:
        rt = make_runtime([base], project)
        await rt.activate("caller")
        await rt.activate("rude")
        assert await rt.call("caller", "tool", "yell", {"w": "hey"}) == "HEY!"
        from aiagent.agent.skills.tools import guarded

        result = await guarded(rt.call("rude", "tool", "rude", {}))
        assert result.is_error and "skill:invoke" in result.content
        await rt.close()

    run(go())


def test_scaffolds_pass_their_own_tests(tmp_path: Path) -> None:
    from aiagent.agent.skills.scaffold import TEMPLATES, create

    async def go() -> None:
        for kind, backend in TEMPLATES:
            folder = tmp_path / f"{kind}-{backend}"
            create(f"my-{kind}", kind, backend, folder)
            results = await run_cases(folder)
            assert results and all(r.ok for r in results), (kind, backend, [r.detail for r in results])

    run(go())
