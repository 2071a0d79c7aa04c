"""Log analysis: a log (stdin or a file, gzip or not) read as a stream with bounded
memory, parsed, mined into templates (``miner.py``) and summarised into a static report;
a model, when there is one, turns a bounded briefing of that report into an incident
report checked against ``data/incident.schema.json``.

    source = open_log(path, sys.stdin.buffer)
    static = analyse(source, on_progress)          # no model needed
    incident = await explain(static, complete)     # complete(system, prompt) -> str
"""
