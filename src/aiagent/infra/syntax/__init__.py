"""Source syntax shared by tools, the security engine, the wiki and the pipelines.

``languages`` classifies a path by language or file kind; ``treesitter`` loads the
offline tree-sitter grammars lazily. Nothing here imports the rest of aiagent.
"""
