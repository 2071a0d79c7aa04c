"""What the agent may do: the approval policy (modes, rules, saved grants), the analysis of
shell command lines, and which folders are trusted."""
