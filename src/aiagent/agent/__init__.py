"""The agent: the loop (core), its tools, skills and the permission policy."""
