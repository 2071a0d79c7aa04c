"""Scheduling of the module passes: a module starts as soon as the modules it imports are
done, not when its whole round is — through the real ``aiagent wiki`` against FakeLLM.

In the demo repository ``app`` imports ``app-core``; ``web`` is an unrelated leaf. The fake
holds ``web``'s answer until ``app``'s request arrives (or 30 s pass): with rounds, ``app``
would wait for ``web`` and the hold would time out."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from test_wiki_cli import make_repo
from test_wiki_model_passes import good_answer, kind_of, kinds, prompt_of, run_wiki

from aiagent.engines.wiki.cluster import Module
from aiagent.engines.wiki.passes import levels, prerequisites
from aiagent.testing import FakeLLM, Turn

HOLD = 30.0


def test_a_module_starts_when_its_imports_are_done_not_its_round(run_cli: Any, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    app_asked = threading.Event()
    held: list[bool] = []

    def answer(body: dict[str, Any]) -> Turn:
        kind, mid = kind_of(prompt_of(body))
        if (kind, mid) == ("module", "app"):
            app_asked.set()
        if (kind, mid) == ("module", "web"):
            held.append(app_asked.wait(HOLD))
        return Turn(text=json.dumps(good_answer(kind, mid)), usage=(1000, 100))

    with FakeLLM(responder=answer) as fake:
        proc = run_wiki(run_cli, fake, repo, "--depth", "quick", "--concurrency", "4")
    assert proc.returncode == 0, proc.stderr
    assert held == [True], "app was not asked while web was still in flight"
    order = [m for k, m in kinds(fake) if k == "module"]
    assert order.index("app-core") < order.index("app") and order.index("app-core") < order.index("tests")


def test_with_one_call_at_a_time_it_is_still_bottom_up(run_cli: Any, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "demo")
    with FakeLLM(responder=lambda b: Turn(text=json.dumps(good_answer(*kind_of(prompt_of(b)))))) as fake:
        proc = run_wiki(run_cli, fake, repo, "--depth", "quick", "--concurrency", "1")
    assert proc.returncode == 0, proc.stderr
    order = [m for k, m in kinds(fake) if k == "module"]
    assert order == [m for round_ in levels_of(repo) for m in round_]


def levels_of(repo: Path) -> list[list[str]]:
    from aiagent.engines.wiki.cluster import cluster
    from aiagent.engines.wiki.model import build_model
    from aiagent.engines.wiki.scan import scan
    from aiagent.engines.wiki.steering import Steering

    return levels(cluster(build_model(scan(repo, Steering()))))


def test_prerequisites_break_a_cycle_like_the_rounds() -> None:
    def mod(mid: str, *deps: str) -> Module:
        return Module(mid, mid, [f"{mid}.py"], False, Counter(dict.fromkeys(deps, 1)))

    modules = [mod("a", "b"), mod("b", "a", "c"), mod("c"), mod("d", "a")]
    waits = prerequisites(modules)
    assert waits["c"] == set() and waits["d"] == {"a"}
    assert "b" not in waits["a"] or "a" not in waits["b"]  # never both: no deadlock
    assert waits["b"] >= {"c"}
