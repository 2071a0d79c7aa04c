"""A Stop hook's "block" makes the model go on, bounded: the real ``aiagent --headless``
against FakeLLM on loopback (what the model is sent next, what the hook was given)."""

from __future__ import annotations

import json
from pathlib import Path

from hookkit import hook

from aiagent.testing import Turn


def _answers(n: int) -> list[Turn]:
    return [Turn(text=f"Answer {i}.") for i in range(1, n + 1)]


def test_a_block_makes_the_model_go_on_with_the_reason(run_agent, user_config, tmp_path: Path) -> None:
    seen, mark = tmp_path / "payloads.jsonl", tmp_path / "blocked-once"
    answer = json.dumps({"decision": "block", "reason": "run the tests before you stop"})
    script = (f"cat >> {seen}; echo >> {seen}; "
              f"if [ ! -e {mark} ]; then touch {mark}; echo '{answer}'; fi")
    user_config(hook("Stop", script))
    ran = run_agent(script=_answers(2), prompt="Fix the bug")
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert len(ran.requests) == 2
    last_user = [m for m in ran.requests[1]["json"]["messages"] if m["role"] == "user"][-1]
    assert "run the tests before you stop" in json.dumps(last_user)
    assert "run the tests before you stop" not in ran.sent(0)
    payloads = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert [p["stop_hook_active"] for p in payloads] == [False, True]
    assert payloads[1]["last_assistant_message"] == "Answer 2."
    assert "makes the model go on (1/3)" in ran.proc.stderr
    assert "Answer 2." in ran.proc.stdout


def test_a_hook_that_always_blocks_stops_after_the_bound(run_agent, user_config, run_cli,
                                                          project: Path) -> None:
    user_config(hook("Stop", "echo 'not yet' >&2; exit 2"))
    ran = run_agent(script=_answers(8))
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert len(ran.requests) == 4  # the answer, then three continuations
    assert ran.sent(3).count("not yet") == 3
    assert "it already went on 3 time(s) ([hooks] max_stop_continuations = 3)" in ran.proc.stderr
    # the continuations are part of the saved session
    (session,) = json.loads(run_cli("sessions", "list", "--json", cwd=project).stdout)
    shown = run_cli("sessions", "show", session["id"], cwd=project).stdout
    assert shown.count("Stop hook feedback") == 3 and "Answer 4." in shown


def test_the_bound_is_a_setting_and_zero_turns_it_off(run_agent, user_config) -> None:
    user_config("[hooks]\nmax_stop_continuations = 0\n" + hook("Stop", "echo 'not yet' >&2; exit 2"))
    ran = run_agent(script=_answers(3))
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert len(ran.requests) == 1
    assert "max_stop_continuations = 0" in ran.proc.stderr


def test_continue_false_wins_over_block(run_agent, user_config) -> None:
    answer = json.dumps({"decision": "block", "reason": "go on", "continue": False,
                         "stopReason": "enough"})
    user_config(hook("Stop", f"echo '{answer}'"))
    ran = run_agent(script=_answers(3))
    assert len(ran.requests) == 1, ran.proc.stderr


def test_each_prompt_gets_its_own_bound(tmp_path: Path) -> None:
    """The count starts again at each prompt: a second prompt in an interactive session
    is not refused a continuation because the first used them up (unit level: engine)."""
    import asyncio

    from aiagent.agent.hooks.config import HookSet, HookSpec
    from aiagent.agent.hooks.engine import RunFacts, UserHooks
    from aiagent.contracts.hooks import GoOn

    spec = HookSpec("Stop", "", "echo 'again' >&2; exit 2", 10.0, "user", "config.toml", "[[hooks.Stop]] #1")
    fired = UserHooks(HookSet([spec], max_stop_continuations=1),
                      RunFacts("s", tmp_path, tmp_path, {"PATH": "/usr/bin:/bin"}), report=lambda m: None)

    async def go() -> list[bool]:
        out = []
        for _ in range(2):
            await fired.prompt_submit("hi")
            for _ in range(2):
                try:
                    await fired.stop("done")
                    out.append(False)
                except GoOn:
                    out.append(True)
        return out

    assert asyncio.run(go()) == [True, False, True, False]
