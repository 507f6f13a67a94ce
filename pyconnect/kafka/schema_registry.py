"""A Confluent-compatible schema registry, through confluent-kafka's `SchemaRegistryClient`.

Connectors see `Registry` and `SchemaText` only (confluent_kafka is imported here, never by them). Every
failure, from an unknown id (HTTP 404) to a registry that does not answer, is a `RegistryError` whose text
names the registry's URL and what was asked; `not_found` tells the two apart.

Invariants:
- A request is retried `max.retries` times at most (default 2 here, 200 ms apart): a registry that is down
  fails a call within a few seconds, never hangs the task.
- Secrets (`basic.auth.user.info`) never appear in an error's text.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError

T = TypeVar("T")
# The registry client's HTTP library logs every request at INFO: a line per schema looked up is noise in a
# worker's log (failures are reported by the callers), unless a logging config asks for them.
for _name in ("httpx", "httpx2"):
    if logging.getLogger(_name).level == logging.NOTSET:
        logging.getLogger(_name).setLevel(logging.WARNING)
NOT_FOUND = 404
# The client settings a connector may pass on (confluent-kafka's names, after the connector's own prefix).
CLIENT_KEYS = ("url", "basic.auth.user.info", "ssl.ca.location", "ssl.certificate.location", "ssl.key.location",
               "ssl.key.password", "timeout")
_DEFAULTS: dict[str, Any] = {"max.retries": 2, "retries.wait.ms": 200, "retries.max.wait.ms": 1000, "timeout": 10}


class RegistryError(Exception):
    """A registry request failed; `not_found`: the registry answered that it has no such schema or subject."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


@dataclass(frozen=True)
class Reference:
    name: str
    subject: str
    version: int


@dataclass(frozen=True)
class SchemaText:
    """A schema as the registry stores it: its text, type (AVRO, JSON, PROTOBUF) and references."""

    text: str
    type: str
    references: tuple[Reference, ...] = ()


def _text(schema: Schema) -> SchemaText:
    refs = tuple(Reference(str(r.name), str(r.subject), int(r.version or 0)) for r in schema.references or ())
    return SchemaText(str(schema.schema_str), str(schema.schema_type or "AVRO"), refs)


def _schema(text: SchemaText) -> Schema:
    refs = [SchemaReference(r.name, r.subject, r.version) for r in text.references]
    return Schema(text.text, text.type, refs)


class Registry:
    """One registry; `settings` are confluent-kafka's client settings (CLIENT_KEYS), `url` required."""

    def __init__(self, settings: Mapping[str, Any], name: str = "schema registry") -> None:
        conf = {**_DEFAULTS, **{k: v for k, v in settings.items() if v not in (None, "")}}
        if "timeout" in conf:
            conf["timeout"] = float(conf["timeout"])
        self.url = str(conf.get("url", ""))
        self.name = name
        try:
            self._client = SchemaRegistryClient(conf)
        except (ValueError, TypeError, OSError) as e:  # a malformed value; a CA, certificate or key file missing
            given = ", ".join(sorted(k for k in conf if k not in _DEFAULTS or k == "timeout"))
            raise RegistryError(f"{name} at {self.url}: invalid client settings ({given}): {e}") from None

    def _call(self, what: str, call: Callable[[], T]) -> T:
        try:
            return call()
        except SchemaRegistryError as e:
            raise RegistryError(f"{self.name} at {self.url}: {what}: {e.error_message} (HTTP {e.http_status_code})",
                                not_found=e.http_status_code == NOT_FOUND) from None
        except Exception as e:  # the transport's errors (connection refused, timeouts, TLS)
            raise RegistryError(f"{self.name} at {self.url}: {what}: {type(e).__name__}: {e}") from None

    def schema(self, schema_id: int) -> SchemaText:
        """The schema of `schema_id`."""
        return _text(self._call(f"schema id {schema_id}", lambda: self._client.get_schema(schema_id)))

    def subject_versions(self, schema_id: int) -> list[tuple[str, int]]:
        """Every (subject, version) that holds `schema_id`."""
        found = self._call(f"subjects of schema id {schema_id}", lambda: self._client.get_schema_versions(schema_id))
        return [(str(v.subject), int(v.version or 0)) for v in found]

    def versions(self, subject: str) -> list[int]:
        """The subject's versions in order; [] when the subject does not exist."""
        try:
            found = self._call(f"versions of {subject}", lambda: self._client.get_versions(subject))
            return sorted(int(v) for v in found)
        except RegistryError as e:
            if e.not_found:
                return []
            raise

    def version(self, subject: str, version: int) -> tuple[SchemaText, int]:
        """The schema and id of `subject`'s `version`."""
        found = self._call(f"{subject} version {version}", lambda: self._client.get_version(subject, version))
        return _text(found.schema), int(found.schema_id or 0)

    def register(self, subject: str, schema: SchemaText) -> tuple[int, int]:
        """Register `schema` under `subject` (the registry returns the id it already has for the same schema);
        the schema's id and its version in the subject."""
        client = self._client
        schema_id = self._call(f"registering under {subject}", lambda: client.register_schema(subject, _schema(schema)))
        found = self._call(f"looking up {subject}", lambda: client.lookup_schema(subject, _schema(schema)))
        return int(schema_id), int(found.version or 0)

    def compatibility(self, subject: str) -> str | None:
        """The subject's own compatibility level (None: it has none, the registry's default applies)."""
        try:
            return str(self._call(f"compatibility of {subject}", lambda: self._client.get_compatibility(subject)))
        except RegistryError as e:
            if e.not_found:
                return None
            raise

    def set_compatibility(self, subject: str, level: str) -> None:
        self._call(f"setting {subject}'s compatibility", lambda: self._client.set_compatibility(subject, level))

    def subjects(self) -> list[str]:
        return [str(s) for s in self._call("subjects", self._client.get_subjects)]
