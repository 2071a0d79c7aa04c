"""Skills: pluggable units that add tools, instructions, workflows, security rules and
output transforms (spec §4). Read in the portable ``SKILL.md`` format too.

Start at :mod:`aiagent.skills.runtime` (the runtime), :mod:`aiagent.skills.loader`
(discovery) and :mod:`aiagent.skills.manifest` (the manifest). Nothing is imported here,
so ``import aiagent.skills`` stays cheap.
"""
