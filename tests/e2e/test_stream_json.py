"""`aiagent -o stream-json` (and `--input-format stream-json`) through the real command
against FakeLLM on loopback; every line is checked against docs/stream-json.schema.json."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from stream_json_check import AIAGENT, MODEL, anthropic_env, lines_of

from aiagent.testing import FakeLLM, ToolCall, Turn

STREAM = ("--headless", "-o", "stream-json", "--model", MODEL)


def tool_script(path: Path) -> list[Turn]:
    return [Turn(text="I will read the file.", usage=(1000, 50),
                 tool_calls=[ToolCall("read_file", {"file_path": str(path)}, id="call_1")]),
            Turn(text="The file says: hello world.", usage=(2000, 20))]


def test_a_tool_run_is_claude_code_lines(run_cli, project: Path) -> None:
    with FakeLLM(tool_script(project / "notes.txt")) as fake:
        proc = run_cli(*STREAM, "-p", "read notes.txt", cwd=project, env=anthropic_env(fake))
    assert proc.returncode == 0, proc.stderr
    lines = lines_of(proc.stdout)
    assert [(ln["type"], ln.get("subtype")) for ln in lines] == [
        ("system", "init"), ("assistant", None), ("user", None), ("assistant", None),
        ("result", "success")]
    init, first, result_line, second, result = lines
    assert init["model"] == MODEL and init["provider"] == "anthropic"
    assert init["cwd"] == str(project) and "read_file" in init["tools"]
    assert len({ln["session_id"] for ln in lines}) == 1
    assert len({ln["uuid"] for ln in lines}) == len(lines)
    assert first["message"]["content"] == [
        {"type": "text", "text": "I will read the file."},
        {"type": "tool_use", "id": "call_1", "name": "read_file",
         "input": {"file_path": str(project / "notes.txt")}}]
    assert first["message"]["usage"]["input_tokens"] == 1000  # this response's, not the sum
    assert result_line["message"]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "L1: hello world",
         "is_error": False}]
    assert second["message"]["content"] == [{"type": "text", "text": "The file says: hello world."}]
    assert result["result"] == "The file says: hello world."
    assert (result["num_turns"], result["is_error"], result["exit_code"]) == (2, False, 0)
    assert result["usage"]["input_tokens"] == 3000 and result["usage"]["output_tokens"] == 70
    # claude-sonnet-4: $3 / $15 per million tokens
    assert result["total_cost_usd"] == pytest.approx(3000 * 3e-6 + 70 * 15e-6)
    assert "stream_event" not in proc.stdout  # partial text only when asked


def test_partial_messages_stream_the_text(run_cli, project: Path) -> None:
    with FakeLLM([Turn(text="one two three four", text_chunks=4, chunk_delay=0.2)]) as fake:
        proc = run_cli(*STREAM, "--include-partial-messages", "-p", "count", cwd=project,
                       env=anthropic_env(fake))
    assert proc.returncode == 0, proc.stderr
    lines = lines_of(proc.stdout)
    events = [ln["event"] for ln in lines if ln["type"] == "stream_event"]
    assert [e["type"] for e in events] == ["content_block_start"] + ["content_block_delta"] * 4 \
        + ["content_block_stop"]
    assert "".join(e["delta"]["text"] for e in events[1:-1]) == "one two three four"
    kinds = [ln["type"] for ln in lines]
    assert kinds.index("assistant") > max(i for i, k in enumerate(kinds) if k == "stream_event")


def test_a_huge_delta_is_split_into_bounded_lines(run_cli, project: Path) -> None:
    text = "x" * 200_000 + "\u00e9\n\x1b[2J" * 1000
    with FakeLLM([Turn(text=text, text_chunks=1)]) as fake:
        proc = run_cli(*STREAM, "--include-partial-messages", "-p", "big", cwd=project,
                       env=anthropic_env(fake))
    assert proc.returncode == 0, proc.stderr
    lines = lines_of(proc.stdout)  # the schema bounds each delta to 16384 characters
    deltas = [ln["event"]["delta"]["text"] for ln in lines
              if ln["type"] == "stream_event" and "delta" in ln["event"]]
    assert len(deltas) >= 12 and "".join(deltas) == text
    assert max(len(raw) for raw in proc.stdout.splitlines() if '"stream_event"' in raw) < 40_000
    assert lines[-1]["result"] == text  # exact text: JSON escapes the control characters


def test_an_endless_stream_stays_line_delimited_and_ends(run_cli, project: Path,
                                                        tmp_path: Path) -> None:
    user_config(tmp_path, "[network]\nmax_output_chars = 200000\n")
    turn = Turn(fault="endless_tokens", fault_bytes=50_000_000, fault_seconds=30)
    with FakeLLM([turn]) as fake:
        started = time.monotonic()
        proc = run_cli(*STREAM, "--include-partial-messages", "-p", "go", cwd=project,
                       env=anthropic_env(fake), timeout=120)
    took = time.monotonic() - started
    assert took < 100
    # small deltas are gathered: at most ~20 lines a second, whatever the server sends
    assert proc.stdout.count('"stream_event"') <= 20 * took + 200_000 / 16384 + 10
    assert len(proc.stdout) < 1_000_000  # bounded by max_output_chars, not by the server
    lines = lines_of(proc.stdout)
    result = lines[-1]
    assert result["type"] == "result" and result["is_error"] is True
    assert proc.returncode == result["exit_code"] != 0, proc.stderr
    assert "Traceback" not in proc.stderr


def test_refused_calls_and_the_plan_have_their_lines(run_cli, project: Path) -> None:
    plan = {"explanation": "small", "plan": [{"step": "Write it", "status": "in_progress"}]}
    script = [Turn(tool_calls=[ToolCall("update_plan", plan, id="p1")]),
              Turn(tool_calls=[ToolCall("write_file", {"file_path": str(project / "x.txt"),
                                                       "content": "x"}, id="w1")]),
              Turn(text="I could not write it.")]
    with FakeLLM(script) as fake:
        proc = run_cli(*STREAM, "-p", "write x", cwd=project, env=anthropic_env(fake))
    assert proc.returncode == 0, proc.stderr
    lines = lines_of(proc.stdout)
    plan_line = next(ln for ln in lines if ln.get("subtype") == "plan")
    assert plan_line["plan"]["steps"] == [{"step": "Write it", "status": "in_progress"}]
    denied = next(ln for ln in lines if ln.get("subtype") == "permission_denied")
    assert (denied["tool_name"], denied["tool_use_id"]) == ("write_file", "w1")
    assert lines[-1]["permission_denials"][0]["tool_name"] == "write_file"
    assert not (project / "x.txt").exists()


def test_turn_limit_is_an_error_result(run_cli, project: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})])] * 3
    with FakeLLM(script) as fake:
        proc = run_cli(*STREAM, "--max-turns", "1", "-p", "loop", cwd=project,
                       env=anthropic_env(fake))
    assert proc.returncode == 4, proc.stderr
    result = lines_of(proc.stdout)[-1]
    assert (result["subtype"], result["is_error"], result["stop_reason"]) == \
        ("error_max_turns", True, "max_turns")


def test_a_closed_pipe_ends_the_run_quietly(clean_env: dict[str, str], project: Path) -> None:
    slow = Turn(text="word " * 400, text_chunks=400, chunk_delay=0.02)
    with FakeLLM([slow, Turn(text="never asked")]) as fake:
        proc = subprocess.Popen(
            [AIAGENT, *STREAM, "--include-partial-messages", "-p", "talk"], cwd=project,
            env={**clean_env, **anthropic_env(fake)}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        first = json.loads(proc.stdout.readline())
        proc.stdout.close()  # `| head -1`
        started = time.monotonic()
        code = proc.wait(timeout=30)
        stderr = proc.stderr.read().decode()
        asked = len(fake.requests)
    assert first["subtype"] == "init"
    assert code == 141 and time.monotonic() - started < 10
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    assert asked == 1  # the run stopped: no further request
    # the session was kept: --continue finds it
    with FakeLLM([Turn(text="again")]) as fake:
        again = subprocess.run([AIAGENT, "--headless", "--continue", "-p", "more", "-o", "json"],
                               cwd=project, env={**clean_env, **anthropic_env(fake)},
                               capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        body = json.dumps(fake.requests[0]["json"])
    assert again.returncode == 0, again.stderr
    assert '"talk"' in body


def user_config(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "home" / ".config" / "aiagent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def user_line(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}})


def test_messages_on_stdin_are_turns_of_one_session(run_cli, project: Path) -> None:
    blocks = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "second"}, {"type": "text", "text": "part"}]}})
    stdin = "\n".join([user_line("first question"), "", blocks]) + "\n"
    with FakeLLM([Turn(text="answer one"), Turn(text="answer two")]) as fake:
        proc = run_cli("-o", "stream-json", "--input-format", "stream-json", "--model", MODEL,
                       cwd=project, env=anthropic_env(fake), input=stdin)
        second = json.dumps(fake.requests[1]["json"]["messages"])
    assert proc.returncode == 0, proc.stderr
    lines = lines_of(proc.stdout)
    results = [ln for ln in lines if ln["type"] == "result"]
    assert [r["result"] for r in results] == ["answer one", "answer two"]
    assert [ln["type"] for ln in lines].count("system") == 1  # one init
    assert "first question" in second and "answer one" in second and "second\\n\\npart" in second
    assert results[1]["usage"]["input_tokens"] == 20  # so far in this run


def test_bad_stdin_lines_are_one_line_errors(run_cli, project: Path) -> None:
    stdin = "\n".join([
        "not json",
        json.dumps({"type": "assistant", "message": {}}),
        json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "image"}]}}),
        json.dumps({"type": "user", "message": {"role": "user", "content": "  "}}),
        "[1, 2]",
        user_line("the good one"),
    ]) + "\n"
    with FakeLLM([Turn(text="ok")]) as fake:
        proc = run_cli("-o", "stream-json", "--input-format", "stream-json", "--model", MODEL,
                       cwd=project, env=anthropic_env(fake), input=stdin)
        asked = len(fake.requests)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = proc.stderr.splitlines()
    assert [e.split(":")[2] for e in errors] == [f" stdin line {n}" for n in (1, 2, 3, 4, 5)]
    assert all(e.startswith("aiagent: error: stdin line ") for e in errors)
    lines = lines_of(proc.stdout)
    assert [ln["line"] for ln in lines if ln.get("subtype") == "input_error"] == [1, 2, 3, 4, 5]
    assert asked == 1 and lines[-1]["result"] == "ok"  # the good line still ran


def test_non_utf8_and_overlong_lines(run_cli, project: Path, clean_env: dict[str, str]) -> None:
    data = b"\xff\xfe{}\n" + user_line("fine").encode() + b"\n"
    with FakeLLM([Turn(text="ok")]) as fake:
        proc = subprocess.run([AIAGENT, "-o", "stream-json", "--input-format", "stream-json"],
                              cwd=project, env={**clean_env, **anthropic_env(fake)},
                              input=data, capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == ["aiagent: error: stdin line 1: not UTF-8"]
    assert json.loads(proc.stdout.decode().splitlines()[-1])["result"] == "ok"


def test_input_format_needs_stream_output(run_cli, project: Path) -> None:
    proc = run_cli("--input-format", "stream-json", "-o", "json", cwd=project, input="")
    assert proc.returncode == 2
    assert proc.stderr == "aiagent: error: --input-format stream-json needs --output stream-json\n"
    proc = run_cli("--include-partial-messages", "-p", "x", cwd=project)
    assert proc.returncode == 2 and "needs --output stream-json" in proc.stderr


def test_other_outputs_are_unchanged(run_cli, project: Path) -> None:
    with FakeLLM(tool_script(project / "notes.txt")) as fake:
        proc = run_cli("--headless", "-p", "read it", "-o", "json", "--model", MODEL,
                       cwd=project, env=anthropic_env(fake))
    data = json.loads(proc.stdout)
    assert data["answer"] == "The file says: hello world." and data["stop_reason"] == "completed"
    assert data["cost_usd"] == pytest.approx(3000 * 3e-6 + 70 * 15e-6)
    with FakeLLM(tool_script(project / "notes.txt")) as fake:
        proc = run_cli("--headless", "-p", "read it", "--model", MODEL, cwd=project,
                       env=anthropic_env(fake))
    assert proc.stdout == "The file says: hello world.\n"
    assert proc.stderr.splitlines()[-1] == "aiagent: tokens in/out 3000/70 · cost $0.0100"
    assert os.path.isdir(project)


def test_messages_are_read_as_they_arrive(clean_env: dict[str, str], project: Path) -> None:
    with FakeLLM([Turn(text="first answer"), Turn(text="second answer")]) as fake:
        proc = subprocess.Popen(
            [AIAGENT, "-o", "stream-json", "--input-format", "stream-json", "--model", MODEL],
            cwd=project, env={**clean_env, **anthropic_env(fake)}, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(user_line("one") + "\n")
        proc.stdin.flush()
        seen = []
        while not seen or seen[-1]["type"] != "result":  # the answer comes before stdin ends
            seen.append(json.loads(proc.stdout.readline()))
        assert seen[-1]["result"] == "first answer" and len(fake.requests) == 1
        proc.stdin.write(user_line("two") + "\n")
        proc.stdin.close()
        rest = proc.stdout.read()
        assert proc.wait(timeout=30) == 0
    assert lines_of(rest)[-1]["result"] == "second answer"


def test_a_retried_stream_says_so(run_cli, project: Path) -> None:
    script = [Turn(text="partial answer that is cut", text_chunks=5, cut_after=3),
              Turn(text="whole answer")]
    with FakeLLM(script) as fake:
        proc = run_cli(*STREAM, "--include-partial-messages", "-p", "go", cwd=project,
                       env=anthropic_env(fake))
    assert proc.returncode == 0, proc.stderr
    lines = lines_of(proc.stdout)
    kinds = [ln.get("subtype") or ln["type"] for ln in lines]
    assert "retry" in kinds and kinds.index("retry") < kinds.index("assistant")
    after = lines[kinds.index("retry"):]
    text = "".join(ln["event"]["delta"]["text"] for ln in after
                   if ln["type"] == "stream_event" and "delta" in ln["event"])
    assert text == "whole answer"
    assert [ln["message"]["content"] for ln in lines if ln["type"] == "assistant"] == [
        [{"type": "text", "text": "whole answer"}]]


def test_sigterm_still_writes_the_result(clean_env: dict[str, str], project: Path) -> None:
    slow = Turn(text="word " * 200, text_chunks=200, chunk_delay=0.05)
    with FakeLLM([slow]) as fake:
        proc = subprocess.Popen([AIAGENT, *STREAM, "--include-partial-messages", "-p", "talk"],
                                cwd=project, env={**clean_env, **anthropic_env(fake)},
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        while '"stream_event"' not in proc.stdout.readline():
            pass
        proc.terminate()
        rest = proc.stdout.read()
        code = proc.wait(timeout=30)
    assert code == 143
    result = lines_of(rest)[-1]
    assert (result["subtype"], result["stop_reason"], result["exit_code"]) == \
        ("error_during_execution", "interrupted", 143)
