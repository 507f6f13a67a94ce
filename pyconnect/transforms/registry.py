"""Resolving transform and predicate class names: Connect's Java names and simple names of the
built-ins, entry points of the `pyconnect.transforms` / `pyconnect.predicates` groups, Python paths."""

from __future__ import annotations

import inspect

from pyconnect.api.loading import load_class
from pyconnect.transforms.cast import CastKey, CastValue
from pyconnect.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from pyconnect.transforms.filter import Filter
from pyconnect.transforms.flatten import FlattenKey, FlattenValue
from pyconnect.transforms.header_from import HeaderFromKey, HeaderFromValue
from pyconnect.transforms.header_transforms import DropHeaders, InsertHeader
from pyconnect.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from pyconnect.transforms.insert_field import InsertFieldKey, InsertFieldValue
from pyconnect.transforms.mask_field import MaskFieldKey, MaskFieldValue
from pyconnect.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from pyconnect.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from pyconnect.transforms.routers import RegexRouter, TimestampRouter
from pyconnect.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from pyconnect.transforms.spi import Predicate, Transformation
from pyconnect.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue
from pyconnect.transforms.value_to_key import ValueToKey

TRANSFORMS_PACKAGE = "org.apache.kafka.connect.transforms"
PREDICATES_PACKAGE = "org.apache.kafka.connect.transforms.predicates"
TRANSFORM_GROUP = "pyconnect.transforms"
PREDICATE_GROUP = "pyconnect.predicates"

# Connect's simple names; `$Key`/`$Value` are Java's inner classes of the transform.
_TRANSFORMS: dict[str, type[Transformation]] = {
    "RegexRouter": RegexRouter, "TimestampRouter": TimestampRouter, "Filter": Filter,
    "InsertHeader": InsertHeader, "DropHeaders": DropHeaders, "ValueToKey": ValueToKey,
    "InsertField$Key": InsertFieldKey, "InsertField$Value": InsertFieldValue,
    "ReplaceField$Key": ReplaceFieldKey, "ReplaceField$Value": ReplaceFieldValue,
    "MaskField$Key": MaskFieldKey, "MaskField$Value": MaskFieldValue,
    "ExtractField$Key": ExtractFieldKey, "ExtractField$Value": ExtractFieldValue,
    "HoistField$Key": HoistFieldKey, "HoistField$Value": HoistFieldValue,
    "Cast$Key": CastKey, "Cast$Value": CastValue,
    "HeaderFrom$Key": HeaderFromKey, "HeaderFrom$Value": HeaderFromValue,
    "Flatten$Key": FlattenKey, "Flatten$Value": FlattenValue,
    "TimestampConverter$Key": TimestampConverterKey, "TimestampConverter$Value": TimestampConverterValue,
    "SetSchemaMetadata$Key": SetSchemaMetadataKey, "SetSchemaMetadata$Value": SetSchemaMetadataValue,
}
_PREDICATES: dict[str, type[Predicate]] = {
    "TopicNameMatches": TopicNameMatches, "HasHeaderKey": HasHeaderKey, "RecordIsTombstone": RecordIsTombstone,
}

TRANSFORM_ALIASES: dict[str, type] = {
    **_TRANSFORMS, **{f"{TRANSFORMS_PACKAGE}.{name}": cls for name, cls in _TRANSFORMS.items()}}
PREDICATE_ALIASES: dict[str, type] = {
    **_PREDICATES, **{f"{PREDICATES_PACKAGE}.{name}": cls for name, cls in _PREDICATES.items()}}


def java_name(cls: type) -> str:
    """The Java class name a built-in stands for, else the Python path (what `/connector-plugins` lists)."""
    for table, package in ((_TRANSFORMS, TRANSFORMS_PACKAGE), (_PREDICATES, PREDICATES_PACKAGE)):
        for name, known in table.items():
            if known is cls:
                return f"{package}.{name}"
    return f"{cls.__module__}.{cls.__qualname__}"


def builtin_transforms() -> list[type[Transformation]]:
    return list(_TRANSFORMS.values())


def builtin_predicates() -> list[type[Predicate]]:
    return list(_PREDICATES.values())


def resolve_class(name: str, kind: str) -> type:
    """Any class `name` resolves to for the kind ("Transformation" or "Predicate"), not yet checked
    against the kind's base (the caller reports a wrong kind with Connect's message); ClassLoadError."""
    aliases, group = (TRANSFORM_ALIASES, TRANSFORM_GROUP) if kind == "Transformation" else (
        PREDICATE_ALIASES, PREDICATE_GROUP)
    return load_class(name, object, aliases, group)


def concrete_subclasses(cls: type) -> list[str]:
    """Names of the concrete subclasses of an abstract class (Connect suggests them: `Did you mean ...?`)."""
    found: list[str] = []
    pending: list[type] = list(cls.__subclasses__())
    while pending:
        sub = pending.pop(0)
        if inspect.isabstract(sub):
            pending.extend(sub.__subclasses__())
        else:
            found.append(java_name(sub))
    return found
