"""Score a generated wiki with CodeWikiBench's rubric method, beside the published figures.

    .venv/bin/python bench/bench_wiki_rubric.py RUBRIC.json WIKI_DIR [--provider P] [--model M]
        [--concurrency 4] [--retries 2] [--max-chars 48000] [--max-tokens 512] [--out scored.json] [--json]

RUBRIC.json is one repository's rubric from CodeWikiBench (the benchmark data is never
committed: give its path; the ``rubrics`` field of its dataset row, or a ``combined_rubrics.json``).
It is a tree: each node has ``requirements`` (text), ``weight`` (a number) and, unless it is a
leaf, ``sub_tasks``. WIKI_DIR is the folder ``aiagent wiki`` wrote (its Markdown pages are read).

As the method does, each leaf requirement is judged by a model as documented (1) or not (0)
against the documentation; a parent's score is the weighted average of its children's, and
the overall score the weighted average of the top-level nodes. The judge is the model of
aiagent's own provider path (``--provider``/``--model`` as on the command line, keys from the
environment). An answer that is not the asked JSON (garbage, or over 16,000 characters) is
asked again at most ``--retries`` times, then counted as not documented (CodeWikiBench falls
back to a keyword guess there; this harness counts it as a miss and says how many there were).

The documentation given to the judge: the outline of every page (its path and headings), then
the pages' text; when the wiki is larger than ``--max-chars``, the pages that share the most
words with the requirement (and the nodes above it) come first, up to that budget.

CodeWiki's 68.8 % and DeepWiki's 64.1 % are the averages over the benchmark's repositories
published with it (arXiv:2510.24428); a figure from one repository is set beside them, not
equal to them. Without a usable key the harness says so in one line and exits 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PUBLISHED = (("CodeWiki (published)", 68.8), ("DeepWiki (published)", 64.1))
MAX_ANSWER = 16_000
PROVIDER_ERROR = "provider error: "
MAX_DEPTH = 32
SYSTEM = (
    "You judge software documentation. You are given one requirement and a project's "
    "documentation. Decide whether the documentation explains, describes or mentions what the "
    "requirement asks for (directly or clearly implied). Answer with one JSON object only: "
    '{"score": 1 or 0, "reasoning": "one short sentence", "evidence": "the page and heading"}.'
)


class BadInput(Exception):
    """A rubric or wiki that cannot be used: one line for the user."""


@dataclass
class Node:
    text: str
    weight: float
    path: str
    children: list[Node] = field(default_factory=list)
    score: float = 0.0
    judged: bool = True  # False: no usable answer within the retries
    reasoning: str = ""

    def leaves(self) -> list[Node]:
        return [self] if not self.children else [n for c in self.children for n in c.leaves()]


# ---- the rubric ---------------------------------------------------------------------------

def load_rubric(path: Path) -> list[Node]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"cannot read the rubric {path}: {exc}") from None
    if isinstance(data, dict) and "rubrics" in data:
        data = data["rubrics"]
    if isinstance(data, str):  # the dataset row keeps it as a JSON string
        return load_rubric_text(data, path)
    return nodes(data, "", 0, path)


def load_rubric_text(text: str, path: Path) -> list[Node]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"cannot read the rubric {path}: {exc}") from None
    return nodes(data.get("rubrics", data) if isinstance(data, dict) else data, "", 0, path)


def nodes(items: Any, prefix: str, depth: int, path: Path) -> list[Node]:
    if not isinstance(items, list) or not items or depth > MAX_DEPTH:
        raise BadInput(f"{path}: expected a non-empty list of rubric items at {prefix or 'the top'}")
    out = []
    for i, item in enumerate(items):
        where = f"{prefix}.{i}" if prefix else str(i)
        if not isinstance(item, dict) or not isinstance(item.get("requirements"), str):
            raise BadInput(f"{path}: item {where} has no 'requirements' text")
        weight = item.get("weight", 1)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise BadInput(f"{path}: item {where} has a weight that is not a number >= 0")
        subs = item.get("sub_tasks") or []
        children = nodes(subs, where, depth + 1, path) if subs else []
        out.append(Node(item["requirements"], float(weight), where, children))
    return out


def aggregate(items: list[Node]) -> float:
    """Each parent's score is the weighted average of its children's (bottom-up); returns the
    weighted average of ``items``. A zero total weight scores 0, as in the method."""
    for node in items:
        if node.children:
            node.score = aggregate(node.children)
    total = sum(n.weight for n in items)
    return sum(n.score * n.weight for n in items) / total if total > 0 else 0.0


# ---- the wiki -----------------------------------------------------------------------------

@dataclass
class Page:
    name: str
    text: str
    words: frozenset[str]


def load_wiki(folder: Path) -> list[Page]:
    if not folder.is_dir():
        raise BadInput(f"the wiki folder {folder} does not exist")
    pages = []
    for file in sorted(folder.rglob("*")):
        if file.suffix.lower() not in (".md", ".mdx", ".markdown") or not file.is_file():
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        pages.append(Page(file.relative_to(folder).as_posix(), text, frozenset(words(text))))
    if not pages:
        raise BadInput(f"no Markdown pages under {folder}")
    return pages


def words(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z0-9_]{3,}", text.lower())


def outline(pages: list[Page], budget: int) -> str:
    lines = []
    for page in pages:
        lines.append(f"- {page.name}")
        lines += [f"    {h.strip()}" for h in page.text.splitlines() if re.match(r"#{1,4} ", h)]
    return "\n".join(lines)[:budget]


def documentation(pages: list[Page], query: str, budget: int) -> str:
    """The outline, then the pages' text within ``budget`` characters (the pages sharing the
    most words with ``query`` first when not all fit)."""
    head = "## Outline\n" + outline(pages, budget // 4) + "\n\n## Pages\n"
    left = budget - len(head)
    chosen = pages
    if sum(len(p.text) + len(p.name) + 12 for p in pages) > left:
        wanted = set(words(query))
        chosen = sorted(pages, key=lambda p: (-len(wanted & p.words), p.name))
    parts = []
    for page in chosen:
        if left <= 200:
            break
        part = f"\n=== {page.name} ===\n{page.text}"[:left]
        parts.append(part)
        left -= len(part)
    return head + "".join(parts)


# ---- the judge ----------------------------------------------------------------------------

def verdict(answer: str) -> tuple[int, str] | None:
    """The score and reasoning of a judge's answer, or None when it is not the asked JSON."""
    if len(answer) > MAX_ANSWER:
        return None
    start, end = answer.find("{"), answer.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(answer[start:end + 1])
    except json.JSONDecodeError:
        return None
    score = data.get("score") if isinstance(data, dict) else None
    if isinstance(score, bool) or score not in (0, 1):
        return None
    return int(score), str(data.get("reasoning", ""))[:300]


def prompt(leaf: Node, context: str, docs: str) -> str:
    return (f"Requirement: {leaf.text}\n"
            f"(Under: {context})\n\n"
            f"Documentation:\n{docs}\n\n"
            "Is the requirement documented? Answer with the JSON object only.")


async def judge(llm: Any, leaf: Node, text: str, retries: int, max_tokens: int = 512) -> None:
    from aiagent.contracts.providers import AuthError, ProviderError

    for _ in range(retries + 1):
        try:
            answer = await llm(text, {"system": SYSTEM, "max_tokens": max_tokens})
        except AuthError:
            raise
        except ProviderError as exc:
            leaf.reasoning = f"{PROVIDER_ERROR}{exc}"[:300]
            continue
        found = verdict(answer)
        if found is not None:
            leaf.score, leaf.reasoning = float(found[0]), found[1]
            return
        leaf.reasoning = "the answer was not the asked JSON: " + " ".join(answer.split())[:200]
    leaf.score, leaf.judged = 0.0, False


def contexts(items: list[Node], above: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for node in items:
        out[node.path] = above or "(top level)"
        if node.children:
            out.update(contexts(node.children, f"{above} > {node.text}" if above else node.text))
    return out


async def judge_all(llm: Any, rubric: list[Node], pages: list[Page], args: argparse.Namespace) -> None:
    under = contexts(rubric)
    gate = asyncio.Semaphore(max(1, args.concurrency))

    async def one(leaf: Node) -> None:
        docs = documentation(pages, f"{under[leaf.path]} {leaf.text}", args.max_chars)
        async with gate:
            await judge(llm, leaf, prompt(leaf, under[leaf.path], docs), args.retries, args.max_tokens)

    await asyncio.gather(*(one(leaf) for top in rubric for leaf in top.leaves()))


# ---- the run ------------------------------------------------------------------------------

def open_judge(args: argparse.Namespace) -> Any:
    """The one-shot model of aiagent's provider path; AuthError when there is no usable key."""
    from aiagent.app import Application
    from aiagent.infra.config.flags import flags_layer
    from aiagent.infra.config.settings import Settings

    flags = {k: v for k, v in (("provider", args.provider), ("model", args.model)) if v}
    settings = Settings.load(Path.cwd(), flags_layer(flags))
    return Application(settings, interactive=False).one_shot(max_tokens=args.max_tokens)


async def score(args: argparse.Namespace, rubric: list[Node], pages: list[Page]) -> str:
    llm = open_judge(args)
    try:
        await judge_all(llm, rubric, pages, args)
    finally:
        await llm.aclose()
    return str(llm.model)


def report(rubric: list[Node], overall: float, model: str, pages: int) -> dict[str, Any]:
    leaves = [leaf for top in rubric for leaf in top.leaves()]
    return {
        "judge": model, "pages": pages, "leaves": len(leaves),
        "documented": sum(1 for leaf in leaves if leaf.score >= 1),
        "unjudged": sum(1 for leaf in leaves if not leaf.judged),
        "provider_errors": sum(1 for leaf in leaves if not leaf.judged and leaf.reasoning.startswith(PROVIDER_ERROR)),
        "overall": round(overall * 100, 1),
        "top": [{"requirement": n.text, "weight": n.weight, "score": round(n.score * 100, 1)} for n in rubric],
        "published": dict(PUBLISHED),
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"judge: {result['judge']}; {result['pages']} pages; {result['leaves']} leaf requirements, "
          f"{result['documented']} documented, {result['unjudged']} without a usable answer (counted 0"
          f"; {result['provider_errors']} of them a provider error)\n")
    print(f"{'weight':>6} {'score':>7}  top-level requirement")
    for top in result["top"]:
        print(f"{top['weight']:>6g} {top['score']:>6.1f}%  {top['requirement'][:70]}")
    print(f"\n{'':>6} {result['overall']:>6.1f}%  overall (this wiki, this repository)")
    for name, figure in PUBLISHED:
        print(f"{'':>6} {figure:>6.1f}%  {name}, average over the benchmark's repositories")


def tree(items: list[Node]) -> list[dict[str, Any]]:
    return [{"requirements": n.text, "weight": n.weight, "score": n.score,
             **({"sub_tasks": tree(n.children)} if n.children
                else {"judged": n.judged, "reasoning": n.reasoning})} for n in items]


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("rubric", type=Path, help="a CodeWikiBench rubric JSON file")
    parser.add_argument("wiki", type=Path, help="the folder aiagent wiki wrote")
    parser.add_argument("--provider", help="provider (as aiagent's --provider)")
    parser.add_argument("--model", help="judge model (as aiagent's --model)")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--retries", type=int, default=2, help="re-asks after an unusable answer")
    parser.add_argument("--max-chars", type=int, default=48_000, help="documentation per prompt")
    parser.add_argument("--max-tokens", type=int, default=512,
                        help="the longest answer asked of the judge (a verdict needs about 60 tokens)")
    parser.add_argument("--out", type=Path, help="write the scored rubric tree here (JSON)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    args.retries = max(0, min(args.retries, 5))
    args.max_tokens = max(32, min(args.max_tokens, 4096))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    from aiagent.contracts.providers import AuthError
    from aiagent.infra.config.settings import ConfigError

    try:
        rubric, pages = load_rubric(args.rubric), load_wiki(args.wiki)
        model = asyncio.run(score(args, rubric, pages))
    except BadInput as exc:
        print(f"bench_wiki_rubric: {exc}", file=sys.stderr)
        return 2
    except (AuthError, ConfigError) as exc:
        print(f"bench_wiki_rubric: no usable model for the judge: {exc}", file=sys.stderr)
        return 2
    result = report(rubric, aggregate(rubric), model, len(pages))
    if result["leaves"] and result["provider_errors"] == result["leaves"]:  # no figure: the judge was never heard
        last = next(leaf.reasoning for top in rubric for leaf in top.leaves())
        print(f"bench_wiki_rubric: the judge answered none of the {result['leaves']} requirements ({last})",
              file=sys.stderr)
        return 2
    if args.out:
        args.out.write_text(json.dumps(tree(rubric), indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
