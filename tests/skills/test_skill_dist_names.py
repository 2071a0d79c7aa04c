"""What `aiagent skill install ARG` understands, and what outside names may not say."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiagent.agent.skills.distribution.names import (
    DistError,
    Request,
    check_name,
    check_subpath,
    parse_request,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("kubernetes", Request("registry", "kubernetes")),
    ("hipaa-compliance@1.2.0", Request("registry", "hipaa-compliance", "1.2.0")),
    ("k8s@^1.2", Request("registry", "k8s", "^1.2")),
    ("github.com/co/my-skill", Request("git", "https://github.com/co/my-skill")),
    ("github.com/co/my-skill@v2.0", Request("git", "https://github.com/co/my-skill", "v2.0")),
    ("git@github.com:co/s.git", Request("git", "git@github.com:co/s.git")),
    ("git@github.com:co/s.git@main", Request("git", "git@github.com:co/s.git", "main")),
    ("https://u@host/x.git", Request("git", "https://u@host/x.git")),
    ("./my-skill", Request("path", "/work/my-skill")),
])
def test_install_arguments(text: str, expected: Request) -> None:
    assert parse_request(text, Path("/work")) == expected


@pytest.mark.parametrize("text", ["ext::sh -c id", "-uevil", "https://h/x@--upload-pack=x", "fd::3", "https://h/a b"])
def test_hostile_install_arguments_are_refused(text: str) -> None:
    with pytest.raises(DistError):
        parse_request(text, Path("/work"))


@pytest.mark.parametrize("name", ["..", "a/b", "-x", "A", "a--b", "a-", "x" * 65, ""])
def test_names_that_could_become_paths_are_refused(name: str) -> None:
    with pytest.raises(DistError):
        check_name(name)
    assert check_name("good-name-2") == "good-name-2"


@pytest.mark.parametrize("sub", ["../x", "/etc", "a/../../b", ".git/hooks", "-x"])
def test_subfolders_stay_inside(sub: str) -> None:
    with pytest.raises(DistError):
        check_subpath(sub)
    assert check_subpath("skills/x") == "skills/x"
