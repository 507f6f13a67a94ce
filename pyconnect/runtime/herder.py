"""Cluster operations behind the REST API (Connect's herder): reads, validated writes, restarts,
offsets and topic tracking. Raises `HerderError(status, message)` with Connect's codes and texts."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import (
    ConfigKey,
    config_string,
)
from pyconnect.plugins import PluginInfo, PluginNotFound
from pyconnect.runtime.connector_config import COMMON
from pyconnect.runtime.connector_runner import connector_instance
from pyconnect.runtime.worker import Worker
from pyconnect.storage.status_store import Status

CONVERTERS = [("org.apache.kafka.connect.converters.ByteArrayConverter", "converter"),
              ("org.apache.kafka.connect.storage.StringConverter", "converter"),
              ("org.apache.kafka.connect.json.JsonConverter", "converter")]

STOP_FIRST = ("Connectors must be in the STOPPED state before their offsets can be modified. This can be done for "
              "the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint")


class HerderError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def java_map_string(config: Mapping[str, Any]) -> str:
    """A map as Java's `AbstractMap.toString` prints it: `{k=v, k2=v2}`."""
    return "{" + ", ".join(f"{k}={'null' if v is None else v}" for k, v in config.items()) + "}"


def key_info(key: ConfigKey) -> dict[str, Any]:
    default = None if key.required else config_string(key.type, key.default)
    return {"name": key.name, "type": key.type.value, "required": key.required, "default_value": default,
            "importance": key.importance.value, "documentation": key.documentation, "group": key.group,
            "order": key.order, "width": key.width, "display_name": key.display_name or key.name,
            "dependents": list(key.dependents)}


class Herder:
    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    # reads -----------------------------------------------------------------------------------

    def snapshot(self) -> Any:
        self.worker.configs.refresh(10)
        return self.worker.configs.snapshot()

    def require(self, name: str) -> dict[str, str]:
        snap = self.snapshot()
        if name not in snap.connectors:
            raise HerderError(404, f"Connector {name} not found")
        config: dict[str, str] = snap.connectors[name]
        return config

    def connector_type(self, config: Mapping[str, str]) -> str:
        try:
            return self.worker.plugins.resolve(config.get("connector.class", "")).type
        except PluginNotFound:
            return "unknown"

    def info(self, name: str) -> dict[str, Any]:
        snap = self.worker.configs.snapshot()
        config = snap.connectors[name]
        tasks = snap.task_configs.get(name, [])
        return {"name": name, "config": config, "tasks": [{"connector": name, "task": i} for i in range(len(tasks))],
                "type": self.connector_type(config)}

    @staticmethod
    def _state(status: Status) -> dict[str, Any]:
        out: dict[str, Any] = {"state": status.state, "worker_id": status.worker_id}
        if status.trace:
            out["trace"] = status.trace  # left out when empty, as Connect does
        if status.progress is not None:
            out["progress"] = status.progress  # batch tasks only (an extension)
        return out

    def status(self, name: str) -> dict[str, Any]:
        statuses = self.worker.statuses
        statuses.refresh(10)
        conn = statuses.connector(name)
        snap = self.worker.configs.snapshot()
        if conn is None or name not in snap.connectors:
            raise HerderError(404, f"No status found for connector {name}")
        count = len(snap.task_configs.get(name, []))
        tasks = [{"id": i, **self._state(st)} for i, st in sorted(statuses.tasks(name).items()) if i < count]
        return {"name": name, "connector": self._state(conn), "tasks": tasks,
                "type": self.connector_type(snap.connectors[name])}

    def task_status(self, name: str, task: int) -> dict[str, Any]:
        self.worker.statuses.refresh(10)
        st = self.worker.statuses.task(name, task)
        if st is None or task >= len(self.worker.configs.snapshot().task_configs.get(name, [])):
            raise HerderError(404, f"No status found for task {name}-{task}")
        return {"id": task, **self._state(st)}

    def tasks(self, name: str) -> list[dict[str, Any]]:
        self.require(name)
        configs = self.worker.configs.snapshot().task_configs.get(name, [])
        return [{"id": {"connector": name, "task": i}, "config": c} for i, c in enumerate(configs)]

    def tasks_config(self, name: str) -> dict[str, dict[str, str]]:
        self.require(name)
        return {f"{name}-{i}": c for i, c in enumerate(self.worker.configs.snapshot().task_configs.get(name, []))}

    def offsets(self, name: str) -> dict[str, Any]:
        self.require(name)
        self.worker.offsets.refresh(10)
        return {"offsets": [{"partition": p, "offset": o} for p, o in self.worker.offsets.connector_offsets(name)]}

    def active_topics(self, name: str) -> dict[str, Any]:
        if not self.worker.config["topic.tracking.enable"]:
            raise HerderError(403, "Topic tracking is disabled.")
        self.worker.statuses.refresh(10)
        return {name: {"topics": sorted(self.worker.statuses.topics(name))}}

    # validation ------------------------------------------------------------------------------

    def plugin(self, class_name: str) -> PluginInfo:
        try:
            return self.worker.plugins.resolve(class_name)
        except PluginNotFound as exc:
            raise HerderError(400, str(exc)) from None  # Connect's BadRequestException (Kafka 4.x)

    def validate(self, config: Mapping[str, str]) -> dict[str, Any]:
        """ConfigInfos: common keys + the plugin's keys with per-key errors. Values are shown parsed,
        defaults filled in and passwords hidden; `name` is `connector.class` as given."""
        class_name = config.get("connector.class")
        if class_name is None:
            raise HerderError(400, f"Connector config {java_map_string(config)} contains no connector type")
        info = self.plugin(class_name)
        connector = info.cls()
        definition = COMMON.merge(connector.config_def())
        common = {n: v for n, v in COMMON.validate_all(config).items() if n not in connector.config_def().keys}
        values = {**common, **connector.validate(config)}
        configs = []
        for name, key in definition.keys.items():
            value = values.get(name)
            configs.append({"definition": key_info(key),
                            "value": {"name": name, "value": config_string(key.type, value.value if value else None),
                                      "recommended_values": value.recommended_values if value else [],
                                      "errors": value.errors if value else [],
                                      "visible": value.visible if value else True}})
        errors = sum(len(c["value"]["errors"]) for c in configs)
        groups = list(dict.fromkeys(k.group for k in definition.keys.values() if k.group))
        return {"name": class_name, "error_count": errors, "groups": groups, "configs": configs}

    def validate_for_write(self, config: Mapping[str, str]) -> None:
        result = self.validate(config)
        errors = [e for c in result["configs"] for e in c["value"]["errors"]]
        if errors:
            raise HerderError(400, f"Connector configuration is invalid and contains the following {len(errors)} "
                                   "error(s):\n" + "\n".join(errors) +
                                   "\nYou can also find the above list of errors at the endpoint "
                                   "`/connector-plugins/{connectorType}/config/validate`")

    # writes ----------------------------------------------------------------------------------

    def _await(self, condition: Any, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.02)

    @staticmethod
    def trimmed_name(name: str | None) -> str:
        """The name a create request stands for: Java's String.trim strips every code point up to
        U+0020 (so \b too); a missing name is "", which the name validator then rejects."""
        return (name or "").strip("".join(map(chr, range(0x21))))

    def create(self, name: str | None, config: dict[str, str], initial_state: str | None) -> dict[str, Any]:
        name = self.trimmed_name(name)
        if config.get("name", name) != name:
            raise HerderError(400, f"Connector name configuration ({config['name']}) doesn't match connector "
                                   f"name in the URL ({name})")
        config["name"] = name
        if name in self.snapshot().connectors:
            raise HerderError(409, f"Connector {name} already exists")
        self.validate_for_write(config)
        target = None
        if initial_state is not None:
            state = initial_state.strip().upper()
            if state not in ("RUNNING", "PAUSED", "STOPPED"):
                raise HerderError(400, f"Invalid initial state {initial_state}: must be RUNNING, PAUSED or STOPPED")
            target = "STARTED" if state == "RUNNING" else state
        self.worker.configs.put_connector_config(name, config, target)
        self._await(lambda: name in self.worker.configs.snapshot().connectors)
        return self.info(name)

    def put_config(self, name: str, config: dict[str, str]) -> tuple[bool, dict[str, Any]]:
        if config.get("name", name) != name:
            raise HerderError(400, f"Connector name configuration ({config['name']}) doesn't match connector "
                                   f"name in the URL ({name})")
        config["name"] = name
        created = name not in self.snapshot().connectors
        self.validate_for_write(config)
        self.worker.configs.put_connector_config(name, config)
        self._await(lambda: self.worker.configs.snapshot().connectors.get(name) == config)
        return created, self.info(name)

    def patch_config(self, name: str, patch: Mapping[str, str | None]) -> dict[str, Any]:
        merged = dict(self.require(name))
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return self.put_config(name, merged)[1]

    def delete(self, name: str) -> None:
        self.require(name)
        self.worker.configs.remove_connector(name)
        self._await(lambda: name not in self.worker.configs.snapshot().connectors)

    def require_known(self, name: str) -> None:
        """The existence check of pause, resume and stop."""
        if name not in self.snapshot().connectors:
            raise HerderError(404, f"Unknown connector {name}")

    def set_target_state(self, name: str, state: str) -> None:
        self.require_known(name)
        if state == "STOPPED":
            self.worker.configs.put_task_configs(name, [])
        self.worker.configs.put_target_state(name, state)

    def restart(self, name: str, include_tasks: bool, only_failed: bool) -> dict[str, Any] | None:
        """Write a restart request; returns the 202 body (None for the legacy connector-only restart)."""
        snap = self.snapshot()
        if name not in snap.connectors:
            raise HerderError(404, f"Unknown connector: {name}")
        body = None
        if include_tasks or only_failed:
            body = self.status(name)
            if not only_failed or body["connector"]["state"] == "FAILED":
                body["connector"]["state"] = "RESTARTING"
            for task in body["tasks"]:
                if include_tasks and (not only_failed or task["state"] == "FAILED"):
                    task["state"] = "RESTARTING"
        self.worker.configs.request_restart(name, include_tasks, only_failed)
        return body

    def check_task(self, name: str, task: int) -> None:
        snap = self.snapshot()
        if name not in snap.connectors:
            raise HerderError(404, f"Unknown connector: {name}")
        if task >= len(snap.task_configs.get(name, [])):
            raise HerderError(404, f"Unknown task: {name}-{task}")

    def task_owner_url(self, name: str, task: int) -> str | None:
        assignment = self.worker.membership.assignment
        if assignment is None:
            return None
        for worker_id, work in assignment.workers.items():
            if f"{name}-{task}" in work.tasks:
                member = self.worker.membership.live_members().get(worker_id)
                return member.url if member else None
        return None

    # offsets and topics ----------------------------------------------------------------------

    def _require_stopped(self, name: str) -> dict[str, str]:
        config = self.require(name)
        snap = self.worker.configs.snapshot()
        if snap.target_state(name) != "STOPPED" or snap.task_configs.get(name):
            raise HerderError(400, STOP_FIRST.format(name=name))
        return config

    def alter_offsets(self, name: str, body: Any) -> dict[str, str]:
        entries = body.get("offsets") if isinstance(body, dict) else None
        if not entries or not isinstance(entries, list):
            raise HerderError(400, "Partitions / offsets need to be provided for an alter offsets request")
        config = self._require_stopped(name)
        pairs = []
        for entry in entries:
            partition, offset = (entry.get("partition"), entry.get("offset")) if isinstance(entry, dict) else (0, 0)
            if not isinstance(partition, dict) or not (offset is None or isinstance(offset, dict)):
                raise HerderError(400, "Each entry needs a 'partition' object and an 'offset' object or null")
            for m in (partition, offset or {}):
                if any(isinstance(v, (dict, list)) for v in m.values()):
                    raise HerderError(400, "Partition and offset maps may only contain primitive values")
            pairs.append((partition, offset))
        try:
            connector_instance(self.worker.plugins, config).alter_offsets(config, {
                str(i): (p, o) for i, (p, o) in enumerate(pairs)})
        except (ValueError, TypeError) as exc:
            raise HerderError(400, f"Failed to alter offsets: {exc}") from None
        self._write_offsets(name, pairs)
        return {"message": "The offsets for this connector have been altered successfully"}

    def reset_offsets(self, name: str) -> dict[str, str]:
        self._require_stopped(name)
        self.worker.offsets.refresh(10)
        self._write_offsets(name, [(p, None) for p, _ in self.worker.offsets.connector_offsets(name)])
        return {"message": "The offsets for this connector have been reset successfully"}

    def _write_offsets(self, name: str, pairs: list[tuple[dict[str, Any], dict[str, Any] | None]]) -> None:
        for fut in self.worker.offsets.put(name, pairs):
            self.worker.offsets.flush(10)
            fut.result(10)
        self.worker.offsets.refresh(10)

    def reset_topics(self, name: str) -> None:
        if not self.worker.config["topic.tracking.enable"]:
            raise HerderError(403, "Topic tracking is disabled.")
        if not self.worker.config["topic.tracking.allow.reset"]:
            raise HerderError(403, "Topic tracking reset is disabled.")
        self.require(name)
        self.worker.statuses.refresh(10)
        for topic in self.worker.statuses.topics(name):
            self.worker.statuses.delete_topic(name, topic)
        self.worker.statuses.flush(10)

    def plugins(self, connectors_only: bool) -> list[dict[str, str]]:
        out = [{"class": p.java_class, "type": p.type, "version": p.version()} for p in self.worker.plugins.all()]
        if not connectors_only:
            out += [{"class": c, "type": t, "version": "0.1.0"} for c, t in CONVERTERS]
        return out

    def plugin_config(self, plugin: str) -> list[dict[str, Any]]:
        """The plugin's own keys first, then the common keys it does not define (Connect's order)."""
        try:
            own = self.worker.plugins.resolve(plugin).cls().config_def()
        except PluginNotFound:
            raise HerderError(404, f"Unknown plugin {plugin}.") from None
        keys = dict(own.keys)
        for name, key in COMMON.keys.items():
            keys.setdefault(name, key)
        return [key_info(k) for k in keys.values()]
