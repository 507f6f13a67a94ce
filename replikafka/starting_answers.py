"""The REST answers of a worker process while it starts: which clusters `rest.starting` names and probes.

`replikafka distributed` waits for its one cluster (the worker's internal topics); a dedicated MirrorMaker
waits for every cluster of its flows (it reads each flow's state on source and target before its herders
start). Both start answering right after their listeners are bound and stop just before the REST API starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyconnect.config.worker import WorkerConfig
from rest.listener import BoundListeners
from rest.starting import StartingServer

if TYPE_CHECKING:  # the mirror's modules load only when a MirrorMaker runs (replikafka.cli imports this module)
    from connectors.mirror.maker_config import MirrorMakerConfig


def worker_starting(bound: BoundListeners, config: WorkerConfig) -> StartingServer:
    """Answers for `replikafka distributed`: the worker's cluster, named by its group."""
    clusters = {f"the cluster of group {config.group_id}": str(config.raw.get("bootstrap.servers", ""))}
    return StartingServer(bound, config.raw, clusters).start()


def mirror_starting(bound: BoundListeners, config: MirrorMakerConfig, first: WorkerConfig) -> StartingServer:
    """Answers for a dedicated MirrorMaker: every cluster its flows use, by alias (`first`: the first flow's
    worker settings, whose listeners the process serves)."""
    aliases = dict.fromkeys(alias for flow in config.flows for alias in (flow.source, flow.target))
    clusters = {f"cluster {alias}": config.cluster_props(alias).get("bootstrap.servers", "") for alias in aliases}
    return StartingServer(bound, first.raw, clusters).start()
