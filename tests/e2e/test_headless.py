"""The real `aiagent --headless` command against FakeLLM on loopback, per provider."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from aiagent.testing import FakeLLM, ToolCall, Turn

AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def provider_env(provider: str, fake: FakeLLM) -> dict[str, str]:
    return {
        "anthropic": {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"},
        "openai": {"OPENAI_BASE_URL": fake.url + "/v1"},
        "ollama": {"OLLAMA_HOST": fake.url},
    }[provider]


def tool_script(path: Path) -> list[Turn]:
    return [
        Turn(text="I will read the file.", tool_calls=[ToolCall("read_file", {"file_path": str(path)})]),
        Turn(text="The file says: hello world."),
    ]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "ollama"])
def test_text_output_is_only_the_answer(run_cli, project: Path, provider: str) -> None:
    with FakeLLM(tool_script(project / "notes.txt")) as fake:
        proc = run_cli("--headless", "--provider", provider, "--prompt", "What is in notes.txt?",
                       cwd=project, env=provider_env(provider, fake))
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The file says: hello world.\n"
    assert "read_file" in proc.stderr and "L1: hello world" in proc.stderr
    assert "I will read the file." in proc.stderr
    assert len(sent) == 2 and "L1: hello world" in json.dumps(sent[1]["json"])


@pytest.mark.parametrize("provider", ["anthropic", "openai", "ollama"])
def test_json_output(run_cli, project: Path, provider: str) -> None:
    with FakeLLM(tool_script(project / "notes.txt")) as fake:
        proc = run_cli("--headless", "--provider", provider, "--prompt", "read it", "-o", "json",
                       cwd=project, env=provider_env(provider, fake))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["answer"] == "The file says: hello world."
    assert (data["turns"], data["stop_reason"], data["exit_code"]) == (2, "completed", 0)
    call = data["tool_calls"][0]
    assert call["name"] == "read_file" and call["result"] == "L1: hello world"
    assert call["is_error"] is False
    assert data["usage"]["input_tokens"] == 20 and data["usage"]["output_tokens"] == 10


@pytest.mark.parametrize("provider", ["anthropic", "openai", "ollama"])
def test_markdown_output(run_cli, project: Path, provider: str) -> None:
    with FakeLLM(tool_script(project / "notes.txt")) as fake:
        proc = run_cli("--headless", "--provider", provider, "--prompt", "read it", "-o", "markdown",
                       cwd=project, env=provider_env(provider, fake))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("# aiagent run\n\n## Task\n\nread it\n")
    assert "### Tool call: `read_file`" in out and "L1: hello world" in out
    assert out.index("I will read the file.") < out.index("The file says: hello world.")
    assert "Stop reason: completed · turns: 2" in out


def test_stdin_and_file_make_the_prompt(run_cli, project: Path) -> None:
    (project / "task.md").write_text("Summarise the log.")
    with FakeLLM([Turn(text="ok")]) as fake:
        proc = run_cli("--headless", "--provider", "openai", "--file", "task.md",
                       cwd=project, env=provider_env("openai", fake), input="ERROR disk full\n")
        body = json.dumps(fake.requests[0]["json"])
    assert proc.returncode == 0, proc.stderr
    assert "Summarise the log." in body and "<stdin>\\nERROR disk full\\n</stdin>" in body


def test_piped_stdin_alone_is_the_prompt(run_cli, project: Path) -> None:
    with FakeLLM([Turn(text="ok")]) as fake:
        proc = run_cli("--provider", "ollama", cwd=project, env=provider_env("ollama", fake),
                       input="why is the sky blue?")
        body = json.dumps(fake.requests[0]["json"])
    assert proc.returncode == 0 and proc.stdout == "ok\n"
    assert "why is the sky blue?" in body


def test_agent_md_reaches_the_system_prompt(run_cli, project: Path) -> None:
    (project / ".git").mkdir()
    (project / "AGENTS.md").write_text("Always answer in haiku.")
    with FakeLLM([Turn(text="ok")]) as fake:
        run_cli("--headless", "--prompt", "hi", cwd=project, env=provider_env("anthropic", fake))
        body = fake.requests[0]["json"]
    assert "Always answer in haiku." in json.dumps(body["system"])


def test_tools_whitelist(run_cli, project: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("read_file", {"file_path": str(project / "notes.txt")}),
                               ToolCall("write_file", {"file_path": str(project / "x"), "content": "x"})]),
              Turn(text="done")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--tools", "read_file", "--prompt", "go", "-o", "json",
                       cwd=project, env=provider_env("anthropic", fake))
        offered = [t["name"] for t in fake.requests[0]["json"]["tools"]]
    assert offered == ["read_file"]
    data = json.loads(proc.stdout)
    read, write = data["tool_calls"]
    assert not read["is_error"] and write["is_error"] and "unknown tool" in write["result"]
    assert not (project / "x").exists()


def test_unknown_tool_in_whitelist_is_a_usage_error(run_cli, project: Path) -> None:
    proc = run_cli("--headless", "--tools", "read_file,fly", "--prompt", "go", cwd=project,
                   env={"ANTHROPIC_API_KEY": "k"})
    assert proc.returncode == 2 and "unknown tool 'fly'" in proc.stderr


def test_writes_refused_without_whitelist(run_cli, project: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("write_file", {"file_path": str(project / "x"), "content": "x"})]),
              Turn(text="could not write")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--prompt", "go", "-o", "json", cwd=project,
                       env=provider_env("anthropic", fake))
    data = json.loads(proc.stdout)
    assert data["tool_calls"][0]["is_error"] and "not allowed" in data["tool_calls"][0]["result"]
    assert not (project / "x").exists() and proc.returncode == 0


def test_max_turns_exit_4(run_cli, project: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("list_dir", {"dir_path": str(project)})])] * 4
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--prompt", "go", "--max-turns", "2", cwd=project,
                       env=provider_env("anthropic", fake))
    assert proc.returncode == 4 and "turn limit" in proc.stderr


def test_timeout_exit_4(run_cli, project: Path) -> None:
    with FakeLLM([Turn(text="slow " * 20, chunk_delay=0.5, text_chunks=20)]) as fake:
        start = time.monotonic()
        proc = run_cli("--headless", "--prompt", "go", "--timeout", "1s", "-o", "json",
                       cwd=project, env=provider_env("anthropic", fake))
    assert time.monotonic() - start < 10
    assert proc.returncode == 4 and json.loads(proc.stdout)["stop_reason"] == "timeout"


@pytest.mark.parametrize(
    ("turn", "needle"),
    [
        (Turn(status=401, error_message="invalid x-api-key"), "ANTHROPIC_API_KEY"),
        (Turn(status=404, error_message="model: nope"), "test-model"),
    ],
)
def test_provider_errors_exit_3(run_cli, project: Path, turn: Turn, needle: str) -> None:
    with FakeLLM([turn]) as fake:
        proc = run_cli("--headless", "--prompt", "go", "--model", "test-model", cwd=project,
                       env=provider_env("anthropic", fake))
    assert proc.returncode == 3, proc.stderr
    assert needle in proc.stderr and "Traceback" not in proc.stderr
    assert "sk-ant-test-123456" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_retry_after_429_then_success(run_cli, project: Path, tmp_path: Path) -> None:
    config = project / ".agent" / "config.toml"
    config.parent.mkdir()
    config.write_text("[network]\nbackoff_base = 0.01\n")
    with FakeLLM([Turn(status=429, retry_after=0.2), Turn(text="fine")]) as fake:
        proc = run_cli("--headless", "--prompt", "go", cwd=project,
                       env=provider_env("anthropic", fake))
    assert proc.returncode == 0 and proc.stdout == "fine\n"


def test_ctrl_c_exits_130(clean_env: dict[str, str], project: Path) -> None:
    with FakeLLM([Turn(text="x " * 50, chunk_delay=0.2, text_chunks=50)]) as fake:
        proc = subprocess.Popen(
            [AIAGENT, "--headless", "--prompt", "go", "-o", "json"], cwd=project,
            env={**clean_env, **provider_env("anthropic", fake)},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline:  # the run is under way
            time.sleep(0.05)
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 130, err
    assert json.loads(out)["stop_reason"] == "interrupted" and "Traceback" not in err


def test_shell_tag_protocol(run_cli, project: Path) -> None:
    config = project / ".agent" / "config.toml"
    config.parent.mkdir()
    config.write_text('[agent]\ntool_protocol = "tags"\n')
    answer = "Let me look.\n<shell>echo hello-from-tag</shell>\nThat is all."
    with FakeLLM([Turn(text=answer, text_chunks=7), Turn(text="It printed hello.")]) as fake:
        proc = run_cli("--headless", "--provider", "openai", "--tools", "shell_command",
                       "--prompt", "go", cwd=project, env=provider_env("openai", fake))
        first, second = (r["json"] for r in fake.requests)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "It printed hello.\n"
    assert "tools" not in first or not first["tools"]
    assistant, results = second["messages"][-2:]
    assert assistant == {"role": "assistant", "content": answer}
    assert results["role"] == "user"
    assert results["content"].startswith("$ echo hello-from-tag\nExit code: 0")
    assert "hello-from-tag" in results["content"].split("Output:")[1]


def test_shell_tags_need_approval_like_any_shell_call(run_cli, project: Path) -> None:
    config = project / ".agent" / "config.toml"
    config.parent.mkdir()
    config.write_text('[agent]\ntool_protocol = "tags"\n')
    marker = project / "ran"
    script = [Turn(text=f"<shell>touch {marker}</shell>"), Turn(text="refused")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--provider", "openai", "--prompt", "go", cwd=project,
                       env=provider_env("openai", fake))
        results = fake.requests[1]["json"]["messages"][-1]["content"]
    assert proc.returncode == 0 and not marker.exists()
    assert "not allowed" in results


def test_timeout_kills_the_running_command(run_cli, project: Path) -> None:
    marker = project / "still-running"
    command = f"sleep 3 && touch {marker}"
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": command})]), Turn(text="x")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--tools", "shell_command", "--timeout", "1s", "--prompt",
                       "go", cwd=project, env=provider_env("anthropic", fake))
    assert proc.returncode == 4
    deadline = time.monotonic() + 10  # polled: once no process names the marker, none can touch it
    while _running(str(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not marker.exists(), "the command outlived the run"
    assert not _running(str(marker)), "the command outlived the run"


def _running(text: str) -> bool:
    """A live (not zombie) process has ``text`` in its command line."""
    for found in psutil.process_iter(["cmdline", "status"]):
        if found.info["status"] != psutil.STATUS_ZOMBIE and text in " ".join(found.info["cmdline"] or []):
            return True
    return False


def test_secret_values_are_masked_in_live_output_and_results(run_cli, project: Path,
                                                            tmp_path: Path) -> None:
    # credentials are left out of a command's environment; one the user hands on
    # (keep_env) is still masked wherever the command prints it
    config = tmp_path / "home" / ".config" / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[tools.shell]\nkeep_env = ["DEPLOY_TOKEN"]\n')
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "echo token=$DEPLOY_TOKEN"})]),
              Turn(text="done")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--tools", "shell_command", "--prompt", "go", cwd=project,
                       env={**provider_env("anthropic", fake), "DEPLOY_TOKEN": "dtk-9f8e7d6c5b4a"})
        sent = json.dumps(fake.requests[1]["json"])
    assert proc.returncode == 0, proc.stderr
    assert "token=****" in proc.stderr
    assert "dtk-9f8e7d6c5b4a" not in proc.stderr + proc.stdout + sent


def test_context_overflow_compacts_and_sends_again(run_cli, project: Path) -> None:
    for i in range(4):
        (project / f"big{i}.txt").write_text("".join(f"line {n} of file {i}\n" for n in range(1500)))
    reads = [Turn(tool_calls=[ToolCall("read_file", {"file_path": str(project / f"big{i}.txt")})])
             for i in range(4)]
    overflow = Turn(status=400, error_message="prompt is too long: 250000 tokens > 200000 maximum")
    script = [*reads, overflow, Turn(text="Summary: four files were read."), Turn(text="All read.")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--prompt", "read them all", "-o", "json", cwd=project,
                       env=provider_env("anthropic", fake))
        sizes = [len(json.dumps(r["json"])) for r in fake.requests]
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stop_reason"] == "completed"
    assert "too long" in proc.stderr and "compacting" in proc.stderr
    assert sizes[5] < sizes[4] / 2, sizes  # the request sent again is much smaller


def test_context_overflow_without_room_to_shrink_is_a_provider_error(run_cli, project: Path) -> None:
    overflow = Turn(status=400, error_message="This model's maximum context length is 10 tokens")
    with FakeLLM([overflow] * 8) as fake:
        proc = run_cli("--headless", "--prompt", "hi", cwd=project,
                       env=provider_env("anthropic", fake))
    assert proc.returncode == 3 and "too long" in proc.stderr


def test_a_silent_open_stdin_pipe_does_not_hang_a_run_with_a_prompt(
        clean_env: dict[str, str], project: Path) -> None:
    read_end, write_end = os.pipe()  # kept open and silent, as some CI runners do
    try:
        with FakeLLM([Turn(text="answered")]) as fake:
            start = time.monotonic()
            proc = subprocess.run(
                [AIAGENT, "--headless", "--prompt", "go"], cwd=project, stdin=read_end,
                env={**clean_env, **provider_env("anthropic", fake)},
                capture_output=True, text=True, timeout=60,
            )
    finally:
        os.close(read_end)
        os.close(write_end)
    assert proc.returncode == 0 and proc.stdout == "answered\n"
    assert "stdin sent nothing" in proc.stderr
    assert time.monotonic() - start < 30


def test_proxy_settings_are_honoured_for_remote_servers(run_cli, project: Path) -> None:
    with FakeLLM([Turn(text="via the proxy")]) as proxy:
        proc = run_cli("--headless", "--provider", "openai", "--prompt", "hi", cwd=project,
                       env={"OPENAI_BASE_URL": "http://llm.example.invalid/v1",
                            "HTTP_PROXY": proxy.url, "http_proxy": proxy.url})
        target = proxy.requests[0]["path"]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "via the proxy\n"
    assert target == "http://llm.example.invalid/v1/chat/completions"


def test_a_server_on_this_machine_bypasses_the_proxy(run_cli, project: Path) -> None:
    with FakeLLM([Turn(text="direct")]) as fake:
        proc = run_cli("--headless", "--provider", "openai", "--prompt", "hi", cwd=project,
                       env={**provider_env("openai", fake), "HTTP_PROXY": "http://127.0.0.1:9",
                            "http_proxy": "http://127.0.0.1:9"})
    assert proc.returncode == 0 and proc.stdout == "direct\n", proc.stderr
