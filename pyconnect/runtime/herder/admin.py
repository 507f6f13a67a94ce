"""The worker-wide half of the herder: server info, health, plugins and config validation, log levels.
`pyconnect.runtime.herder.herder.Herder` adds the connectors."""

from __future__ import annotations

from collections.abc import Mapping

import pyconnect
from pyconnect.kafka import cluster_trouble
from pyconnect.plugins import component_plugins
from pyconnect.runtime.herder import config_validation
from pyconnect.runtime.herder.request_errors import NotFound
from pyconnect.runtime.herder.worker_view import WorkerView
from pyconnect.runtime.logs import loggers
from pyconnect.runtime.results import ConfigInfos, ConfigKeyInfo, LoggerLevel, PluginDesc, ServerInfo, WorkerHealth


class WorkerAdmin:
    """Operations on this worker and its installation rather than on connectors."""

    def __init__(self, worker: WorkerView) -> None:
        # The worker's collaborators the herder uses, bound once: they live as long as the worker.
        self._worker = worker
        self._config, self._settings = worker.config, worker.config.settings
        self._configs, self._statuses, self._offsets = worker.configs, worker.statuses, worker.offsets
        self._plugins, self._membership, self._log_levels = worker.plugins, worker.membership, worker.log_levels

    def server_info(self) -> ServerInfo:
        """Version and the Kafka cluster this worker's internal topics live on."""
        return ServerInfo(pyconnect.__version__, "", self._worker.cluster_id)

    def health(self) -> WorkerHealth:
        """Connect's worker health (KIP-1017): starting, healthy, or unhealthy and why."""
        worker, membership = self._worker, self._membership
        if not worker.started.is_set() or membership.assignment is None:
            return WorkerHealth("starting", "Worker is still starting up.")
        fenced = membership.fenced
        if fenced is not None:  # replaced under its id while frozen: it runs nothing until restarted
            return WorkerHealth("unhealthy", f"Worker is fenced: {fenced}")
        if not membership.in_sync():
            return WorkerHealth("unhealthy", "Worker has not been able to read the cluster's membership topic within "
                                             "the session timeout.")
        if not worker.loop_alive():
            return WorkerHealth("unhealthy", "Worker's main loop is not progressing.")
        # Beyond KIP-1017: a cluster a connector cannot connect to for a reason retries do not fix (TLS,
        # authentication) is named in the message. The worker itself stays healthy (200): a liveness probe
        # that restarted it would not fix a certificate, and would stop every other connector it runs.
        problems = cluster_trouble.current()
        message = "Worker has completed startup and is ready to handle requests" + (
            ", but cannot connect to " + "; ".join(problems[k] for k in sorted(problems)) if problems else ".")
        # A dedicated flow's connectors that its file leaves unstarted (WorkerScope.notes) are named too.
        return WorkerHealth("healthy", " ".join([message, *worker.scope.notes]))

    # plugins ---------------------------------------------------------------------------------

    def plugins(self, connectors_only: bool) -> list[PluginDesc]:
        """Installed connectors, and with `connectors_only` False the converters, header converters,
        transforms and predicates too (Connect's PluginType names), each with the version of the
        distribution that provides it (KIP-891)."""
        out = [PluginDesc(p.java_class, p.type, p.version()) for p in self._plugins.all()]
        if not connectors_only:
            out += [PluginDesc(p.class_name, p.type, p.version()) for p in component_plugins()]
        return out

    def plugin_config(self, plugin: str, version: str | None = None) -> list[ConfigKeyInfo]:
        """The config keys of a plugin of any type; NotFound for an unknown one, BadConfig when the
        installed version is outside `version` (a Maven version range)."""
        return config_validation.plugin_config(self._plugins, plugin, version)

    def validate(self, config: Mapping[str, str]) -> ConfigInfos:
        """Validate a connector config against its `connector.class` (errors are in the answer)."""
        settings = self._settings
        return config_validation.validate(self._plugins, config, settings.exactly_once,
                                          settings.refuse_unknown_keys, self._config)

    # log levels ------------------------------------------------------------------------------

    def logger_levels(self) -> dict[str, LoggerLevel]:
        """Loggers with an explicit level, and root (this worker's: its flow's in dedicated mode)."""
        return self._log_levels.all_levels()

    def logger_level(self, name: str) -> LoggerLevel:
        """One logger's level; NotFound if no such logger exists."""
        found = self._log_levels.describe(name)
        if found is None:
            raise NotFound(f"Logger {name} not found.")
        return found

    @staticmethod
    def _require_level(level: str) -> None:
        if level.upper() not in loggers.LEVELS:
            raise NotFound(f"invalid log level '{level}'.")

    def set_worker_logger_level(self, namespace: str, level: str) -> list[str]:
        """Set the level of `namespace` and the loggers below it on this worker; the affected names."""
        self._require_level(level)
        return self._log_levels.set_level(namespace, level)

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """Set the level on every worker, through the config topic (KIP-976)."""
        self._require_level(level)
        self._configs.put_logger_level(namespace, level.upper())
