"""The wiki generator (``aiagent wiki``): a documentation site built from the code.

One stage per module, each a plain function over typed data, so the model passes can slot
in between them later:

``scan`` (files, ignore rules, steering) → ``model`` (a tree-sitter model of the code) →
``cluster`` (modules from the import graph, folders as a prior) → ``diagrams`` (Mermaid and
DOT from typed graphs) → ``assemble`` (the page tree of spec Appendix D) → ``render``
(Markdown or MkDocs, written atomically). ``manifest`` records content hashes per module;
``pipeline`` runs the stages in order.
"""
