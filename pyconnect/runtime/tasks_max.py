"""`tasks.max` and `tasks.max.enforce` (KIP-1004): how many task configs a connector may publish.

As Kafka's Worker.connectorTaskConfigs: with enforcement on (the default) a connector that returns more
task configs than `tasks.max` fails with TooManyTasksException's message and publishes none; with
`tasks.max.enforce=false` (deprecated in Kafka) a warning is logged and every config runs.

Invariant: batch tasks (a bulk copy next to a mirror's source tasks, pyconnect.api.batch) are this
project's and do not count against `tasks.max`; only the connector's own task configs do.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

log = logging.getLogger(__name__)


class TooManyTasksException(Exception):
    """A connector generated more task configs than its `tasks.max` (Connect's TooManyTasksException)."""

    def __init__(self, connector: str, tasks: int, max_tasks: int) -> None:
        super().__init__(
            f"The connector {connector} has generated {tasks} tasks, which is greater than {max_tasks}, the "
            "maximum number of tasks it is configured to create. This behaviour should be considered a bug and "
            "is disallowed. If necessary, it can be permitted by reconfiguring the connector with "
            "'tasks.max.enforce' set to false; however, this option will be removed in a future release of "
            "Kafka Connect.")


def max_tasks(config: Mapping[str, str]) -> int:
    """The connector's `tasks.max` (validated before the connector starts)."""
    return int(config.get("tasks.max", "1"))


def check_task_count(connector: str, config: Mapping[str, str], tasks: int) -> None:
    """Raise TooManyTasksException if `tasks` exceeds `tasks.max` and enforcement is on; warn if it is off."""
    limit = max_tasks(config)
    if tasks <= limit:
        return
    # A BOOLEAN key, validated with the connector's config before it starts: "true" or "false", any case.
    if str(config.get("tasks.max.enforce", "true")).strip().lower() != "false":
        raise TooManyTasksException(connector, tasks, limit)
    log.warning("The connector %s has generated %d tasks, which is greater than %d, the maximum number of tasks it "
                "is configured to create. This behavior is deprecated and will be disallowed in future releases of "
                "Kafka Connect. Please report this to the maintainers of the connector and request that they adjust "
                "their connector's taskConfigs() method to respect the maxTasks parameter.", connector, tasks, limit)
