"""The model's authentication and authorization review on security/auth-review.md: the real
command with the security audit, against FakeLLM on loopback. The review rests on the
engine's findings (its briefing lists them); its text is inert Markdown, unknown names are
removed; a second run with nothing changed reuses it with no call, and a changed finding
asks again."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from test_wiki_cli import make_repo
from test_wiki_model_passes import fake_env, good_answer, kind_of, prompt_of

from aiagent.testing import FakeLLM, Turn

AUTH = ('"""Tokens."""\nimport jwt\n\n\ndef check_token(token: str) -> dict:\n'
        '    return jwt.decode(token, "k", verify=False)\n')
REVIEW = {"summary": "Tokens are decoded by `check_token` in `app/auth.py:6` without checking the signature. "
                     "<script>alert(1)</script> [x](javascript:alert(2)) ![t](http://e.invalid/t.png)",
          "concerns": [{"severity": "high", "title": "Forged <b>tokens</b>",
                        "detail": "`check_token` accepts any token."},
                       {"severity": "low", "title": "Made up", "detail": "`invented_helper` is wrong."}],
          "recommendations": ["Verify the signature in `check_token`.", "Call `no_such_function`."]}


def is_auth(prompt: str) -> bool:
    return "Review how this project authenticates" in prompt


def responder(seen: list[str]) -> Any:
    def answer(body: dict[str, Any]) -> Turn:
        prompt = prompt_of(body)
        if is_auth(prompt):
            seen.append(prompt)
            return Turn(text=json.dumps(REVIEW), usage=(1000, 100))
        return Turn(text=json.dumps(good_answer(*kind_of(prompt))), usage=(1000, 100))
    return answer


def run(run_cli: Any, fake: FakeLLM, repo: Path, out: Path) -> Any:
    proc = run_cli("wiki", str(repo), "-o", str(out), "--provider", "openai", "--model", "gpt-4o",
                   env=fake_env(fake), timeout=180)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_auth_review_from_the_model_is_inert_checked_and_incremental(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    (repo / "app" / "auth.py").write_text(AUTH)
    out = tmp_path / "wiki"
    seen: list[str] = []
    with FakeLLM(responder=responder(seen)) as fake:
        run(run_cli, fake, repo, out)
    assert len(seen) == 2 and "`invented_helper` is not a name in the code" in seen[1]  # one truth re-ask
    assert "PY-JWT-001" in seen[0] and "app/auth.py:6" in seen[0] and "check_token" in seen[0]
    page = (out / "security" / "auth-review.md").read_text()
    assert "## The model's review" in page and "not part of this wiki" not in page
    assert "`check_token`" in page and "app/auth.py:6" in page
    assert "<script>" not in page and "<b>" not in page
    assert not re.search(r"(?<!\\)\]\(javascript:", page) and not re.search(r"(?<!\\)!\[", page)  # inert text
    assert "&lt;script&gt;" in page or "&lt;script>" in page
    assert "| high | Forged &lt;b&gt;tokens&lt;/b&gt; |" in page
    assert "invented_helper" not in page and "no_such_function" not in page  # unknown names removed
    assert "- Verify the signature in `check_token`." in page

    with FakeLLM(responder=responder(seen)) as fake:  # nothing changed: no call at all
        run(run_cli, fake, repo, out)
        assert fake.requests == []
    assert len(seen) == 2 and "## The model's review" in (out / "security" / "auth-review.md").read_text()

    (repo / "app" / "auth.py").write_text(AUTH + '\n\ndef check_other(t):\n    return jwt.decode(t, "k", verify=False)\n')
    with FakeLLM(responder=responder(seen)) as fake:  # one more finding: asked again
        run(run_cli, fake, repo, out)
    assert len(seen) == 4


def test_without_a_model_the_page_says_so(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    (repo / "app" / "auth.py").write_text(AUTH)
    out = tmp_path / "wiki"
    proc = run_cli("wiki", str(repo), "-o", str(out), "--no-model", timeout=180)
    assert proc.returncode == 0, proc.stderr
    page = (out / "security" / "auth-review.md").read_text()
    assert "PY-JWT-001" not in page and "JWT signature verification disabled" in page
    assert "_The model's review is not part of this wiki: no model was configured for this run._" in page
