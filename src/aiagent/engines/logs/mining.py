"""Template mining with drain3: a message → a cluster id; a cluster id → its template.

drain3's masking turns the variable parts (ids, addresses, numbers) into ``<NAME>``
first; the settings and masks are in ``data/analysis.toml`` and ``data/patterns.toml``.
"""

from __future__ import annotations

from typing import Any

from aiagent.engines.logs.rules import limits, patterns


class Miner:
    def __init__(self) -> None:
        from drain3 import TemplateMiner  # type: ignore[import-untyped]
        from drain3.masking import MaskingInstruction  # type: ignore[import-untyped]
        from drain3.template_miner_config import TemplateMinerConfig  # type: ignore[import-untyped]

        cfg = limits()["mining"]
        config = TemplateMinerConfig()
        config.drain_sim_th = float(cfg["drain_sim_th"])
        config.drain_depth = int(cfg["drain_depth"])
        config.drain_max_children = int(cfg["drain_max_children"])
        config.drain_max_clusters = int(cfg["drain_max_clusters"])
        config.masking_instructions = [MaskingInstruction(rx, name.upper())
                                       for name, rx in patterns().masks.items()]
        config.parametrize_numeric_tokens = True
        self._miner: Any = TemplateMiner(config=config)

    def mine(self, message: str) -> int:
        result = self._miner.add_log_message(message)
        return int(result["cluster_id"])

    def template(self, cluster_id: int) -> str | None:
        """The cluster's current template (None once drain3 evicted it)."""
        cluster = self._miner.drain.id_to_cluster.get(cluster_id)
        return cluster.get_template() if cluster is not None else None
