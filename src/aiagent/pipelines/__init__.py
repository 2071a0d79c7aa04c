"""Pipelines built on the agent core: code review and log analysis."""
