"""The agent core: messages, events, the loop, prompts and approval."""
