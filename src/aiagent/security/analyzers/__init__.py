"""LLM-powered analyzers (phase 2). This issue ships the seam only."""
