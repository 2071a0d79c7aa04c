"""The harness itself: a legitimate tool call runs and its result reaches the model."""

from __future__ import annotations

from pathlib import Path


def test_a_granted_write_lands_and_the_model_sees_the_result(agent_run, project: Path) -> None:
    run = agent_run([("write_file", {"file_path": "out.txt", "content": "hi\n"})],
                    "--approval-mode", "auto-edit")
    assert run.proc.returncode == 0, run.proc.stderr
    assert (project / "out.txt").read_text() == "hi\n"
    assert "out.txt" in run.tool_results()


def test_a_write_in_read_only_mode_is_refused(agent_run, project: Path) -> None:
    run = agent_run([("write_file", {"file_path": "out.txt", "content": "hi\n"})],
                    "--approval-mode", "read-only")
    assert not (project / "out.txt").exists()
    assert "read-only" in run.tool_results()
