"""Schema registry clients for the schema replication tests: confluent-kafka's Avro, JSON Schema and Protobuf
serializers and deserializers against real registries (pyconnect.testing.apicurio), and their schemas."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.schema_registry import (
    Schema,
    SchemaRegistryClient,
    record_subject_name_strategy,
    topic_record_subject_name_strategy,
    topic_subject_name_strategy,
)
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

KINDS = ("avro", "json", "protobuf")
Codec = Callable[[Any, SerializationContext], Any]
OPTIONAL = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL


def avro_schema(name: str, version: int) -> str:
    """Record `name`: version 1 has id and item; version 2 adds qty with a default (backward compatible)."""
    fields: list[dict[str, Any]] = [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}]
    if version >= 2:
        fields.append({"name": "qty", "type": "int", "default": 1})
    return json.dumps({"type": "record", "name": name, "namespace": "replikafka.test", "fields": fields})


def json_schema(name: str, version: int) -> str:
    props: dict[str, Any] = {"id": {"type": "integer"}, "item": {"type": "string"}}
    if version >= 2:
        props["qty"] = {"type": "integer"}
    return json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "title": name, "type": "object",
                       "properties": props, "required": ["id", "item"]})


def protobuf_class(name: str, version: int) -> Any:
    """A message class built at run time (no protoc): `name` with id, item and (version 2) qty."""
    proto = descriptor_pb2.FileDescriptorProto(name=f"{name.lower()}_v{version}.proto", package="replikafka.test",
                                               syntax="proto3")
    message = proto.message_type.add(name=name)
    kinds = [("id", descriptor_pb2.FieldDescriptorProto.TYPE_INT64),
             ("item", descriptor_pb2.FieldDescriptorProto.TYPE_STRING)]
    if version >= 2:
        kinds.append(("qty", descriptor_pb2.FieldDescriptorProto.TYPE_INT32))
    for number, (field, kind) in enumerate(kinds, start=1):
        message.field.add(name=field, number=number, type=kind, label=OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    return message_factory.GetMessageClass(pool.Add(proto).message_types_by_name[name])


STRATEGIES = {"topic": topic_subject_name_strategy, "record": record_subject_name_strategy,
              "topic_record": topic_record_subject_name_strategy}


def serializer(kind: str, client: SchemaRegistryClient, name: str, version: int, strategy: str = "topic") -> Codec:
    """A confluent-kafka serializer of `kind` for records {"id", "item"[, "qty"]} (registers its schema under
    the subject `strategy` names: TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy; Avro)."""
    if kind == "avro":
        return AvroSerializer(client, avro_schema(name, version), conf={"subject.name.strategy": STRATEGIES[strategy]})
    if kind == "json":
        return JSONSerializer(json_schema(name, version), client)
    cls = protobuf_class(name, version)
    proto = ProtobufSerializer(cls, client, {"use.deprecated.format": False})
    return lambda record, ctx: proto(cls(**record), ctx)


def deserializer(kind: str, client: SchemaRegistryClient, name: str) -> Codec:
    """A deserializer of `kind` that takes the writer's schema from `client`'s registry by the record's id;
    records come back as dicts."""
    if kind == "avro":
        return AvroDeserializer(client)
    if kind == "json":
        return JSONDeserializer(None, schema_registry_client=client)
    cls = protobuf_class(name, 2)  # the reader's class: fields a version-1 writer did not set read as 0
    stored = StoredFormatClient(client.config())
    proto = ProtobufDeserializer(cls, {"use.deprecated.format": False}, schema_registry_client=stored)
    return lambda data, ctx: _proto_dict(proto(data, ctx))


class StoredFormatClient(SchemaRegistryClient):
    """Asks for schemas as stored: Apicurio Registry 3.3's Confluent API answers HTTP 500 to the Protobuf
    deserializer's `format=serialized` (it parses the stored descriptor, which the serializer sent in that
    serialized form already, as .proto text)."""

    def get_schema(self, schema_id: int, subject_name: str | None = None, fmt: str | None = None,
                   reference_format: str | None = None) -> Schema:
        return super().get_schema(schema_id, subject_name)


def _proto_dict(message: Any) -> dict[str, Any]:
    return {f.name: getattr(message, f.name) for f in message.DESCRIPTOR.fields}


def produce_records(bootstrap: str, topic: str, records: list[dict[str, Any]], value: Codec,
                    key: Codec | None = None, partitions: int = 2) -> None:
    """`records` serialized (value, and key from the record's id when `key` is given), spread by id over
    `partitions`, each with a header naming its id."""
    producer = Producer({"bootstrap.servers": bootstrap})
    for record in records:
        payload = value(record, SerializationContext(topic, MessageField.VALUE))
        key_bytes = (key({"id": record["id"], "item": "k"}, SerializationContext(topic, MessageField.KEY))
                     if key is not None else str(record["id"]).encode())
        producer.produce(topic, payload, key=key_bytes, partition=record["id"] % partitions,
                         headers=[("id", str(record["id"]).encode())])
    assert producer.flush(30) == 0


def decoded(messages: list[Any], topic: str, value: Codec) -> list[tuple[int, int, Any]]:
    """(partition, schema id, decoded value) of each wire-format message, in order."""
    out = []
    for m in messages:
        data = m.value()
        out.append((m.partition(), int.from_bytes(data[1:5], "big"),
                    value(data, SerializationContext(topic, MessageField.VALUE))))
    return out
