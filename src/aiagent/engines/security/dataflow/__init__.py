"""Intra-procedural taint tracking over tree-sitter trees.

``analyze(language, root, data)`` walks each function that may call a sink, follows
values through assignments, string building (concatenation, interpolation, ``%``,
``.format``, ``.join``), simple containers and the returns of local helpers, and reports
every sink call with the abstract value that reaches it (``value.Value``). Sources,
sanitizers and sinks are data: ``aiagent/security/rules/taint/<language>.yaml``. Rules
(``rules/sast/*.yaml`` with ``pattern.type: taint``) decide which values are findings.
"""

from aiagent.engines.security.dataflow.analyzer import (
    SinkHit,
    analyze,
    compile_query,
    query_source,
    supported,
)
from aiagent.engines.security.dataflow.value import Value

__all__ = ["SinkHit", "Value", "analyze", "compile_query", "query_source", "supported"]
