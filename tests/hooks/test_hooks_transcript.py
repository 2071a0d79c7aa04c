"""``transcript_path``: hooks written for Claude Code read the conversation there, one JSON
line a message in Claude Code's transcript shape (the real ``aiagent --headless`` against
FakeLLM; what the hook read is written out by the hook itself)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from hookkit import PY, hook

# a hook that copies what transcript_path holds (and the path) next to the test
READER = """
import json, sys
payload = json.load(sys.stdin)
path = payload["transcript_path"]
lines = open(path, encoding="utf-8").read().splitlines() if path else []
with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(json.dumps({"event": payload["hook_event_name"], "path": path,
                          "records": [json.loads(line) for line in lines]}) + "\\n")
"""


def _reads(tmp_path: Path) -> tuple[Path, str]:
    script, seen = tmp_path / "reader.py", tmp_path / "seen.jsonl"
    script.write_text(READER)
    return seen, f"{PY} {script} {seen}"


def _seen(seen: Path) -> list[dict]:
    return [json.loads(line) for line in seen.read_text().splitlines()]


def test_hooks_read_the_conversation_as_claude_code_writes_it(run_agent, user_config,
                                                              clean_env: dict[str, str],
                                                              tmp_path: Path) -> None:
    seen, command = _reads(tmp_path)
    user_config(hook("PostToolUse", command) + hook("Stop", command))
    ran = run_agent()  # the model reads notes.txt, then answers "All done."
    assert ran.proc.returncode == 0, ran.proc.stderr
    post, stop = _seen(seen)
    assert (post["event"], stop["event"]) == ("PostToolUse", "Stop")
    folder = Path(clean_env["XDG_DATA_HOME"]) / "aiagent" / "transcripts"
    assert Path(stop["path"]).parent == folder and stop["path"] == post["path"]
    assert stat.S_IMODE(Path(stop["path"]).stat().st_mode) == 0o600
    records = stop["records"]
    assert [r["type"] for r in records] == ["user", "assistant", "user", "assistant"]
    assert records[0]["message"]["content"][0]["text"].endswith("Read notes.txt")
    use = records[1]["message"]["content"][-1]
    assert use["type"] == "tool_use" and use["name"] == "read_file"
    result = records[2]["message"]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == use["id"]
    assert "hello world" in json.dumps(result)
    assert records[3]["message"]["content"] == [{"type": "text", "text": "All done."}]
    assert [r["parentUuid"] for r in records] == [None] + [r["uuid"] for r in records[:-1]]
    assert {r["sessionId"] for r in records} == {records[0]["sessionId"]} != {""}
    # the PostToolUse hook saw the conversation as it was then: the result not yet answered
    assert len(post["records"]) == 2 and post["records"][1] == records[1]


def test_a_transcript_that_cannot_be_written_leaves_the_path_empty(run_agent, user_config,
                                                                   clean_env: dict[str, str],
                                                                   tmp_path: Path) -> None:
    data = Path(clean_env["XDG_DATA_HOME"]) / "aiagent"
    data.mkdir(parents=True)
    (data / "transcripts").write_text("a file where the folder would be")
    seen, command = _reads(tmp_path)
    user_config(hook("Stop", command))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    (stop,) = _seen(seen)
    assert stop["path"] == "" and stop["records"] == []  # the hook still ran
    assert ran.proc.stderr.count("hooks get an empty transcript_path") == 1
    assert "Traceback" not in ran.proc.stderr
    assert "All done." in ran.proc.stdout


def test_a_symlink_planted_as_the_transcript_is_not_followed(run_agent, user_config,
                                                             clean_env: dict[str, str],
                                                             tmp_path: Path, run_cli,
                                                             project: Path) -> None:
    seen, command = _reads(tmp_path)
    user_config(hook("Stop", command))
    first = run_agent()
    assert first.proc.returncode == 0, first.proc.stderr
    (session,) = json.loads(run_cli("sessions", "list", "--json", cwd=project).stdout)
    path = Path(_seen(seen)[0]["path"])
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    path.unlink()
    path.symlink_to(victim)
    again = run_agent("--resume", session["id"])
    assert again.proc.returncode == 0, again.proc.stderr
    assert victim.read_text() == "keep me\n"  # nothing written through the link
    assert "hooks get an empty transcript_path" in again.proc.stderr


def test_a_resumed_session_is_written_once(run_agent, user_config, tmp_path: Path, run_cli,
                                           project: Path) -> None:
    seen, command = _reads(tmp_path)
    user_config(hook("Stop", command))
    assert run_agent().proc.returncode == 0
    (session,) = json.loads(run_cli("sessions", "list", "--json", cwd=project).stdout)
    again = run_agent("--resume", session["id"], prompt="And again")
    assert again.proc.returncode == 0, again.proc.stderr
    first, second = _seen(seen)
    assert len(first["records"]) == 4 and len(second["records"]) == 8  # not 4 + 8
    assert len({r["uuid"] for r in second["records"]}) == 8
    assert second["records"][4]["message"]["content"][-1]["text"].endswith("And again")
