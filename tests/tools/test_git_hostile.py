"""Hostile repositories: one real repository per way a repository can make git run a program.

Each vector's program appends to a marker file. Every test first shows that plain git
(without our hardening) in that repository DOES run it, so the test is real; then that the
git tools, the checkpoints and a call prepared by :mod:`aiagent.infra.process.git` do not, and
still give the right answer.
"""

from __future__ import annotations

import os
import pty
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from tool_harness import Harness

from aiagent.agent.core.checkpoints import Checkpoints
from aiagent.infra.process.git import config_env, overrides, prepare

EVIL = """#!/bin/sh
echo "$0 $*" >> '{marker}'
if [ -f "$1" ]; then cat "$1"; else cat; fi
"""
QUITS = """#!/bin/sh
echo "$0 $*" >> '{marker}'
exit 1
"""


@dataclass
class Repo:
    ws: Harness
    marker: Path
    evil: str  # passes its input through (a filter, a pager, a textconv)
    quits: str  # fails at once (ssh, upload-pack)

    @property
    def root(self) -> Path:
        return self.ws.root

    def config(self, key: str, value: str) -> None:
        subprocess.run(["git", "-C", str(self.root), "config", key, value], check=True)

    def fired(self) -> bool:
        return self.marker.exists()

    def plain(self, *args: str, tty: bool = False) -> str:
        """Plain git, as a user (or a tool without hardening) would run it; resets the marker."""
        return _run(["git", *args], self.root, plain_env(), tty)

    def hardened(self, *args: str, tty: bool = False) -> str:
        call = prepare(self.root, args[0], *args[1:])
        return _run(call.argv, self.root, call.env, tty)


def plain_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("GIT_CONFIG_K", "GIT_CONFIG_V",
                                                                     "GIT_CONFIG_C", "GIT_CONFIG_P"))}


def _run(argv: list[str], cwd: Path, env: dict[str, str], tty: bool) -> str:
    if not tty:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, stdin=subprocess.DEVNULL, timeout=30)
        return done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, env={**env, "TERM": "xterm"}, stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=30)
    os.close(master)
    return b"".join(chunks).decode(errors="replace")


@pytest.fixture
def repo(ws: Harness, tmp_path: Path) -> Repo:
    marker = tmp_path / "marker"
    evil = tmp_path / "evil.sh"
    evil.write_text(EVIL.format(marker=marker))
    evil.chmod(0o755)
    quits = tmp_path / "quits.sh"
    quits.write_text(QUITS.format(marker=marker))
    quits.chmod(0o755)
    subprocess.run(["git", "init", "-q", "-b", "main", str(ws.root)], check=True)
    r = Repo(ws, marker, str(evil), str(quits))
    for key, value in (("user.name", "Test"), ("user.email", "t@example.com"), ("commit.gpgsign", "false")):
        r.config(key, value)
    (ws.root / "a.txt").write_text("one\n")
    subprocess.run(["git", "-C", str(ws.root), "add", "a.txt"], check=True)
    subprocess.run(["git", "-C", str(ws.root), "commit", "-qm", "first"], check=True)
    (ws.root / "a.txt").write_text("one\ntwo\n")
    return r


def proves(repo: Repo, *args: str, tty: bool = False) -> None:
    """Plain git runs the repository's program (the vector is real); then reset the marker."""
    repo.plain(*args, tty=tty)
    assert repo.fired(), f"plain `git {' '.join(args)}` did not run the hostile program"
    repo.marker.unlink()


def tools_work_and_run_nothing(repo: Repo) -> None:
    status = repo.ws.ok("git_status", {})
    assert " M a.txt" in status
    assert "+two" in repo.ws.ok("git_diff", {})
    assert "first" in repo.ws.ok("git_log", {})
    assert "main" in repo.ws.ok("git_branch", {})
    assert not repo.fired(), repo.marker.read_text()


def test_fsmonitor(repo: Repo) -> None:
    repo.config("core.fsmonitor", repo.evil)
    proves(repo, "status")
    tools_work_and_run_nothing(repo)
    repo.hardened("status")
    assert not repo.fired()


def test_fsmonitor_set_through_an_include(repo: Repo) -> None:
    (repo.root / ".git" / "extra.inc").write_text(f"[core]\n\tfsmonitor = {repo.evil}\n")
    repo.config("include.path", "extra.inc")
    proves(repo, "status")
    tools_work_and_run_nothing(repo)


def test_fsmonitor_set_through_a_conditional_include(repo: Repo) -> None:
    (repo.root / ".git" / "extra.inc").write_text(f"[core]\n\tfsmonitor = {repo.evil}\n")
    repo.config("includeIf.gitdir:" + str(repo.root) + "/.git.path", "extra.inc")
    proves(repo, "status")
    tools_work_and_run_nothing(repo)


def test_core_pager(repo: Repo) -> None:
    repo.config("core.pager", repo.evil)
    proves(repo, "log", tty=True)
    tools_work_and_run_nothing(repo)
    assert "first" in repo.hardened("log", tty=True)
    assert not repo.fired()


def test_pager_for_one_command(repo: Repo) -> None:
    repo.config("pager.status", repo.evil)
    repo.config("pager.log", repo.evil)
    proves(repo, "status", tty=True)
    tools_work_and_run_nothing(repo)
    assert "a.txt" in repo.hardened("status", tty=True)
    assert not repo.fired()


HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout",
         "reference-transaction", "post-index-change")


def _commit_and_switch_run_no_hook(repo: Repo) -> None:
    out = repo.ws.ok("git_commit", {"message": "second", "paths": ["a.txt"]})
    assert "second" in out
    assert repo.ws.ok("git_status", {}).endswith("nothing to commit, working tree clean")
    assert repo.ws.ok("git_branch", {"name": "topic", "checkout": True}) == "Created and switched to branch topic"
    assert "second" in repo.ws.ok("git_log", {})
    assert not repo.fired(), repo.marker.read_text()


def test_hooks_in_dot_git_hooks(repo: Repo) -> None:
    for name in HOOKS:
        hook = repo.root / ".git" / "hooks" / name
        hook.write_text(f"#!/bin/sh\n{repo.evil} {name} </dev/null\n")
        hook.chmod(0o755)
    proves(repo, "commit", "--allow-empty", "-m", "plain")
    _commit_and_switch_run_no_hook(repo)


def test_core_hooks_path(repo: Repo, tmp_path: Path) -> None:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in HOOKS:
        (hooks / name).write_text(f"#!/bin/sh\n{repo.evil} {name} </dev/null\n")
        (hooks / name).chmod(0o755)
    repo.config("core.hooksPath", str(hooks))
    proves(repo, "commit", "--allow-empty", "-m", "plain")
    _commit_and_switch_run_no_hook(repo)


def test_diff_external(repo: Repo) -> None:
    repo.config("diff.external", repo.evil)
    proves(repo, "diff")
    tools_work_and_run_nothing(repo)
    assert "+two" in repo.hardened("diff")
    assert not repo.fired()


def test_textconv_driver_from_gitattributes(repo: Repo) -> None:
    (repo.root / ".gitattributes").write_text("*.txt diff=conv\n")
    repo.config("diff.conv.textconv", repo.evil)
    repo.config("diff.conv.command", repo.evil)
    proves(repo, "log", "-p")
    proves(repo, "diff")
    tools_work_and_run_nothing(repo)
    assert "+two" in repo.hardened("log", "-p", "-1") + repo.hardened("diff")
    assert not repo.fired()


def test_clean_and_smudge_filters_from_gitattributes(repo: Repo) -> None:
    (repo.root / ".gitattributes").write_text("*.txt filter=Ev.il\n")
    for key in ("clean", "smudge"):
        repo.config(f"filter.Ev.il.{key}", repo.evil)
    repo.config("filter.Ev.il.required", "true")
    proves(repo, "add", "--dry-run", "-v", ".")  # not a real add: the index stays as it was
    proves(repo, "diff")
    tools_work_and_run_nothing(repo)
    repo.ws.ok("git_commit", {"message": "second", "paths": ["a.txt", ".gitattributes"]})
    shown = subprocess.run(["git", "-C", str(repo.root), "show", "HEAD:a.txt"],
                           capture_output=True, text=True, check=True).stdout
    assert shown == "one\ntwo\n"  # the raw content: no clean filter touched it
    repo.ws.ok("git_branch", {"name": "old", "start_point": "HEAD~1"})
    assert repo.ws.ok("git_branch", {"name": "old", "checkout": True}) == "Switched to branch old"
    assert (repo.root / "a.txt").read_text() == "one\n"
    assert not repo.fired(), repo.marker.read_text()


def test_filter_process_driver(repo: Repo) -> None:
    (repo.root / ".gitattributes").write_text("*.txt filter=proc\n")
    repo.config("filter.proc.process", repo.evil)
    proves(repo, "add", "--dry-run", "-v", ".")
    tools_work_and_run_nothing(repo)


def test_gpg_program_with_commit_gpgsign(repo: Repo) -> None:
    repo.config("gpg.program", repo.evil)
    repo.config("commit.gpgSign", "true")
    repo.config("log.showSignature", "true")
    proves(repo, "commit", "--allow-empty", "-m", "plain")
    out = repo.ws.ok("git_commit", {"message": "second", "all": True})
    assert "second" in out
    assert "second" in repo.ws.ok("git_log", {})
    assert not repo.fired(), repo.marker.read_text()


def test_core_ssh_command(repo: Repo) -> None:
    repo.config("core.sshCommand", repo.quits)
    repo.config("remote.origin.url", "ssh://git@nohost.invalid/x.git")
    proves(repo, "ls-remote", "origin")
    tools_work_and_run_nothing(repo)
    repo.hardened("ls-remote", "origin")
    assert not repo.fired()
    # Only the config entries (what a shell command's git would inherit), our env aside:
    _run(["git", "ls-remote", "origin"], repo.root, {**plain_env(), **config_env(repo.root)}, False)
    assert not repo.fired()


def test_upload_pack_of_a_local_remote(repo: Repo, tmp_path: Path) -> None:
    repo.config("remote.origin.url", str(repo.root))
    repo.config("remote.origin.uploadpack", repo.quits)
    proves(repo, "ls-remote", "origin")
    assert "HEAD" in repo.hardened("ls-remote", "origin")
    assert not repo.fired()


def test_credential_helpers_including_url_scoped_ones(repo: Repo) -> None:
    repo.config("credential.helper", repo.evil)
    repo.config("credential.https://example.com.helper", repo.evil)
    fill = "protocol=https\nhost=example.com\n\n"

    def run(env: dict[str, str]) -> None:
        subprocess.run(["git", "credential", "fill"], cwd=repo.root, env=env, input=fill.encode(),
                       capture_output=True, timeout=30)

    run({**plain_env(), "GIT_TERMINAL_PROMPT": "0"})
    assert repo.fired()
    repo.marker.unlink()
    call = prepare(repo.root, "credential", "fill")
    run(call.env)
    assert not repo.fired()


def test_the_shadow_repository_of_checkpoints_runs_no_filter(repo: Repo, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # The shadow repository has its own config; the workspace's .gitattributes still select
    # filters, which the user's global config (git-lfs, for example) or an include define.
    glob = tmp_path / "global.gitconfig"
    glob.write_text(f'[filter "evil"]\n\tclean = {repo.evil}\n\tsmudge = {repo.evil}\n'
                    f"[core]\n\tfsmonitor = {repo.evil}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(glob))
    (repo.root / ".gitattributes").write_text("*.txt filter=evil\n")
    proves(repo, "add", "--dry-run", "-v", ".")
    cps = Checkpoints.for_workspace(repo.root, tmp_path / "data")
    before = cps.snapshot()
    (repo.root / "a.txt").write_text("three\n")
    assert "+three" in cps.diff(before)
    assert cps.restore(before, ["a.txt"]) == ["a.txt"]
    assert (repo.root / "a.txt").read_text() == "one\ntwo\n"
    assert not repo.fired(), repo.marker.read_text()


def _listing(*entries: tuple[str, str]) -> str:
    return "".join(f"{scope}\0{entry}\0" for scope, entry in entries)


def test_overrides_keep_driver_names_exactly() -> None:
    listing = _listing(*(("local", e) for e in [
        "filter.My.Dotted=Name.clean\n/x", "diff.conv.textconv\n/y", "diff.external\n/z",
        "pager.log\n/p", "core.editor\nvi", "merge.m.driver\n/m", "credential.helper\n/c",
    ]))
    got = dict(overrides(listing))
    assert got["filter.My.Dotted=Name.clean"] == ""
    assert got["filter.My.Dotted=Name.required"] == "false"
    assert "filter.My.Dotted=Name.smudge" not in got  # only keys that are set are overridden
    assert got["diff.conv.textconv"] == "cat"
    assert "diff.conv.command" not in got
    assert got["diff.external"] == ""
    assert got["pager.log"] == "false"
    assert got["merge.m.driver"] == "false"
    assert "core.editor" not in got  # fixed entries cover it


def test_overrides_keep_the_users_own_drivers() -> None:
    listing = _listing(("global", "filter.lfs.clean\ngit-lfs clean -- %f"),
                       ("global", "filter.lfs.smudge\ngit-lfs smudge -- %f"),
                       ("local", "filter.lfs.smudge\n/evil"),
                       ("local", "filter.x.clean\n/evil"))
    assert overrides(listing) == [
        ("filter.lfs.smudge", "git-lfs smudge -- %f"),  # the repository's value undone
        ("filter.x.clean", ""), ("filter.x.required", "false"),
    ]
    strict = dict(overrides(listing, user_drivers=False))
    assert strict["filter.lfs.clean"] == strict["filter.lfs.smudge"] == ""


def test_a_users_global_filter_still_applies_but_a_repository_override_does_not(
        repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    glob = tmp_path / "global.gitconfig"
    glob.write_text('[filter "upper"]\n\tclean = tr a-z A-Z\n\tsmudge = cat\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(glob))
    (repo.root / ".gitattributes").write_text("*.txt filter=upper\n")
    repo.config("filter.upper.clean", repo.evil)  # the repository redefines the user's filter
    proves(repo, "add", "--dry-run", "-v", ".")
    repo.ws.ok("git_commit", {"message": "second", "paths": ["a.txt", ".gitattributes"]})
    shown = subprocess.run(["git", "-C", str(repo.root), "show", "HEAD:a.txt"],
                           capture_output=True, text=True, check=True).stdout
    assert shown == "ONE\nTWO\n"  # the user's filter ran, the repository's did not
    assert not repo.fired(), repo.marker.read_text()


def test_a_clean_repository_behaves_as_before(repo: Repo) -> None:
    """No hostile config: the hardened environment adds nothing that changes results."""
    call = prepare(repo.root, "status", "--short")
    assert call.argv[1:3] == ["--no-pager", "status"]
    assert call.env["GIT_CONFIG_COUNT"] == str(sum(1 for k in call.env if k.startswith("GIT_CONFIG_KEY_")))
    assert repo.hardened("status", "--short").strip() == "M a.txt"
    assert repo.plain("status", "--short").strip() == "M a.txt"


def test_the_skill_host_git_functions(repo: Repo) -> None:
    import asyncio
    from types import SimpleNamespace

    from aiagent.agent.skills.host import HostServices, SkillHost

    repo.config("core.fsmonitor", repo.evil)
    (repo.root / ".gitattributes").write_text("*.txt diff=conv\n")
    repo.config("diff.conv.textconv", repo.evil)
    proves(repo, "diff")
    services = HostServices(root=repo.root, env={"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/")})
    manifest = SimpleNamespace(name="t", permissions=["git:read"], config={}, file=repo.root / "skill.yaml")
    host = SkillHost(services, manifest)  # type: ignore[arg-type]
    assert {"status": "M", "path": "a.txt"} in asyncio.run(host.fn_git_status())
    assert "+two" in asyncio.run(host.fn_git_diff("HEAD"))
    assert asyncio.run(host.fn_git_log(1))[0]["subject"] == "first"
    assert not repo.fired(), repo.marker.read_text()


def test_a_filter_defined_in_an_included_file(repo: Repo) -> None:
    (repo.root / ".git" / "drivers.inc").write_text(f'[filter "inc"]\n\tclean = {repo.evil}\n\trequired = true\n')
    repo.config("include.path", "drivers.inc")
    (repo.root / ".gitattributes").write_text("*.txt filter=inc\n")
    proves(repo, "add", "--dry-run", "-v", ".")
    tools_work_and_run_nothing(repo)
    repo.ws.ok("git_commit", {"message": "second", "paths": ["a.txt"]})
    assert not repo.fired()
