"""`replikafka standalone worker.properties [connector1.properties ...]` (and `pyconnect-standalone`),
shaped like Connect's connect-standalone.sh.

Startup, as ConnectStandalone does it: the worker file is read and validated (StandaloneConfig), the
Kafka cluster is looked up, every connector file is read, then the worker (offsets in the file named
by `offset.storage.file.filename`, everything else in memory) and its REST API start, and each
connector is created through the herder, as POST /connectors creates one, so it is validated the
same way. The REST listener is bound right after the files are read, before the worker is created.
Exit codes: 2 for a bad worker or connector file (Connect exits 3 for a connector that cannot be
created; one code for "your input is wrong" keeps scripts simple here), 1 when Kafka cannot be
reached or the REST listener cannot be bound (the message names the address), 0 after SIGTERM/SIGINT
(tasks stopped, their last offsets flushed to the file).
"""

from __future__ import annotations

import logging
import sys

from pyconnect.config.properties import ConfigFileError, load_properties
from pyconnect.config.standalone import OFFSET_STORAGE_FILE_FILENAME, StandaloneConfig, load_standalone_config
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.clients import KafkaClientError
from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.herder.request_errors import HerderError
from pyconnect.runtime.standalone_storage import standalone_log_factory
from pyconnect.runtime.worker import Worker
from pyconnect.storage.file_log import FileLogError
from replikafka.connector_files import ConnectorFile, load_connector_file
from rest.listener import ListenerBindError, bind_listeners
from rest.server import RestServers

log = logging.getLogger("pyconnect")


def _error(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _load(worker_path: str, connector_paths: list[str]) -> tuple[StandaloneConfig, list[ConnectorFile]]:
    """Every file read and the worker file validated before anything starts (ConfigFileError otherwise)."""
    config = load_standalone_config(load_properties(worker_path))
    return config, [load_connector_file(path) for path in connector_paths]


def _create_connectors(worker: Worker, connectors: list[ConnectorFile]) -> None:
    """Create each connector as POST /connectors does (HerderError, naming the file, if one cannot be)."""
    herder = Herder(worker)
    if not herder.await_leader() or not worker.membership.is_leader():
        raise RuntimeError("the standalone worker did not become the leader of its one-member cluster")
    for connector in connectors:
        try:
            herder.create(connector.name, dict(connector.config), connector.initial_state)
        except HerderError as exc:
            log.error("Failed to create connector for %s", connector.path)  # Connect's line; stderr has why
            raise HerderError(f"{connector.path}: {exc}") from exc
        log.info("Created connector %s (%s)", connector.name, connector.path)


def run_standalone(worker_path: str, connector_paths: list[str]) -> int:
    """Run a standalone worker until SIGTERM/SIGINT; return the exit code."""
    from replikafka.cli import startup_error, stop_on_signal

    try:
        config, connectors = _load(worker_path, connector_paths)
        # First: a taken port stops the start before anything runs.
        listener = bind_listeners(config.listeners, config.admin_listeners or [])
    except (ConfigFileError, ListenerBindError, ValueError) as exc:
        return startup_error(worker_path, exc)
    try:
        worker = Worker(config, log_factory=standalone_log_factory(config))
        # As ConnectStandalone looks up the Kafka cluster id: an unreachable cluster stops the start.
        worker.cluster_id = Admin(config.client_config("admin", "admin.")).cluster_id(timeout=20)
        rest = RestServers(worker, listener)
    except (KafkaClientError, ListenerBindError, ValueError) as exc:
        listener.close()
        return startup_error(worker_path, exc)
    stop = stop_on_signal()  # from here a SIGTERM stops the worker gracefully, also while connectors are created
    try:
        worker.start()
    except (FileLogError, OSError) as exc:  # the offsets file: locked by another process, corrupt, unwritable
        listener.close()
        return _error(str(config.source.error(OFFSET_STORAGE_FILE_FILENAME, str(exc)) if config.source else exc))
    try:
        rest.start()
    except ListenerBindError as exc:
        worker.stop()
        return startup_error(worker_path, exc)
    log.info("REST API listening on %s (advertised %s)", listener.urls, config.advertised_url)
    try:
        _create_connectors(worker, connectors)
    except (HerderError, RuntimeError) as exc:
        log.error("Stopping after connector error")
        rest.stop()
        worker.stop()
        return _error(str(exc))
    stop.wait()
    rest.stop()
    worker.stop()
    return 0
