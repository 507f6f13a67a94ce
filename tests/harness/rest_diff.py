"""One sequence of Connect REST calls, run against any worker, and the field-by-field diff of two runs.

A run is a list of `Answer`s (a label, the HTTP status, the parsed body). Two runs are compared by status and
by body SHAPE, never by value: a body's shape keeps an object's key set and each value's JSON type, and for
a list (or an object whose keys are data, such as the logger map) the union of its elements' shapes. Worker
ids, versions, trace texts and the connector's own task configs therefore never count as differences.

Invariants:
- Both workers get the same calls in the same order, and every wait is a poll of the worker's own status
  under a deadline (Connect's herder acts asynchronously), so a difference is never a race of the sequence.
- A difference names its label and the JSON path of the field; `table()` renders the differences as Markdown.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import httpx

Shape = Any  # dict[str, Shape] | list[Shape] | frozenset[str]


@dataclass(frozen=True)
class Answer:
    label: str
    status: int
    body: Any  # parsed JSON; None for an empty body; the text when it is not JSON
    seconds: float = 0.0  # how long the call (or the poll it stands for) took


@dataclass(frozen=True)
class Difference:
    label: str
    path: str
    java: str
    ours: str


def parsed(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except json.JSONDecodeError:
        return response.text


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "bool", int: "int", float: "float", str: "str"}.get(type(value), type(value).__name__)


def merge(a: Shape, b: Shape) -> Shape:
    """The union of two shapes: objects by key (a key of one only is kept), lists by element, else types."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {key: merge(a[key], b[key]) if key in a and key in b else a.get(key, b.get(key)) for key in a | b}
    if isinstance(a, list) and isinstance(b, list):
        return [merge(a[0], b[0])] if a and b else a or b
    return frozenset(_names(a) | _names(b))


def _names(shape: Shape) -> frozenset[str]:
    if isinstance(shape, dict):
        return frozenset({"object"})
    if isinstance(shape, list):
        return frozenset({"array"})
    return frozenset(shape)


def _union(shapes: Iterable[Shape]) -> list[Shape]:
    merged: list[Shape] = []
    for shape in shapes:
        merged = [merge(merged[0], shape)] if merged else [shape]
    return merged


def shape_of(value: Any, maps: frozenset[str] = frozenset(), path: str = "$") -> Shape:
    """`value`'s shape; an object at a path in `maps` is a map: its keys are data, its values one shape."""
    if isinstance(value, dict):
        if path in maps:
            return {"<key>": (_union(shape_of(v, maps, f"{path}.<key>") for v in value.values()) or [None])[0]}
        return {key: shape_of(item, maps, f"{path}.{key}") for key, item in value.items()}
    if isinstance(value, list):
        return _union(shape_of(item, maps, f"{path}[]") for item in value)
    return frozenset({_type_name(value)})


def _describe(shape: Shape) -> str:
    if shape is None:
        return "(absent)"
    if isinstance(shape, dict):
        return "object{" + ",".join(sorted(shape)) + "}"
    if isinstance(shape, list):
        return "array" if not shape else f"array of {_describe(shape[0])}"
    return "|".join(sorted(shape))


def shape_differences(label: str, java: Shape, ours: Shape, path: str = "$") -> list[Difference]:
    """Where two shapes differ, outermost first: a missing or extra key, a different type."""
    if isinstance(java, dict) and isinstance(ours, dict):
        found = [Difference(label, f"{path}.{k}", _describe(java.get(k)), _describe(ours.get(k)))
                 for k in sorted(java.keys() ^ ours.keys())]
        for key in sorted(java.keys() & ours.keys()):
            found += shape_differences(label, java[key], ours[key], f"{path}.{key}")
        return found
    if isinstance(java, list) and isinstance(ours, list):
        if java and ours:
            return shape_differences(label, java[0], ours[0], f"{path}[]")
        return []  # an empty list on either side says nothing of its elements
    if _describe(java) != _describe(ours):
        return [Difference(label, path, _describe(java), _describe(ours))]
    return []


def diff(java: list[Answer], ours: list[Answer], maps: dict[str, frozenset[str]]) -> list[Difference]:
    """Every status and shape difference between two runs of the same sequence."""
    found: list[Difference] = []
    for theirs, mine in zip(java, ours, strict=True):
        assert theirs.label == mine.label, (theirs.label, mine.label)
        if theirs.status != mine.status:
            found.append(Difference(theirs.label, "status", str(theirs.status), str(mine.status)))
        keyed = maps.get(theirs.label, frozenset())
        found += shape_differences(theirs.label, shape_of(theirs.body, keyed), shape_of(mine.body, keyed))
    return found


def table(differences: list[Difference], reasons: dict[tuple[str, str], str]) -> str:
    """The differences as a Markdown table, each with its documented reason (or "UNEXPLAINED")."""
    rows = ["| call | field | Connect | replikafka | reason |", "|---|---|---|---|---|"]
    rows += [f"| {d.label} | `{d.path}` | {d.java} | {d.ours} | {reasons.get((d.label, d.path), 'UNEXPLAINED')} |"
             for d in differences]
    return "\n".join(rows)


def poll(call: Callable[[], httpx.Response], done: Callable[[httpx.Response], bool], timeout: float) -> httpx.Response:
    """Repeat `call` until `done` holds or `timeout` passes; the last response either way (the sequence goes
    on, and the diff shows the state it ended in)."""
    deadline = time.monotonic() + timeout
    while True:
        response = call()
        if done(response) or time.monotonic() > deadline:
            return response
        time.sleep(0.25)  # the poll interval of a wait under a deadline
