"""The LLM phase in a few lines of text, for the terminal table."""

from __future__ import annotations

from typing import Any


def summary_lines(llm: dict[str, Any]) -> list[str]:
    """Nothing when the phase did not run."""
    if not llm:
        return []
    usage = llm.get("usage", {})
    tokens_in = usage.get("input_tokens", 0) + usage.get("cache_read_tokens", 0) \
        + usage.get("cache_write_tokens", 0)
    cost = llm.get("cost_usd")
    price = f"${cost:.4f}" if isinstance(cost, int | float) else "cost unknown for this model"
    left = llm.get("files_left_out", 0)
    budget = f", {left} left out by the budget of {llm.get('budget_tokens')} tokens" if left else ""
    errors = len(llm.get("errors", ()))
    return [
        "",
        f"LLM phase ({llm.get('provider')} {llm.get('model')}; "
        f"{', '.join(llm.get('analyzers', ()))}): {len(llm.get('files_sent', ()))} files sent"
        f"{budget}; {llm.get('requests', 0)} requests, {tokens_in} tokens in, "
        f"{usage.get('output_tokens', 0)} out, {price}.",
        f"LLM findings: {llm.get('findings_added', 0)} added, "
        f"{llm.get('duplicates_merged', 0)} merged with others, "
        f"{llm.get('findings_rejected', 0)} rejected; {errors} error(s)"
        + (" (see the warnings)." if errors else "."),
    ]
