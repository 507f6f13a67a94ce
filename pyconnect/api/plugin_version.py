"""Plugin versions (KIP-891): the version a plugin class reports, and the Maven version ranges that
`connector.plugin.version` and the `*.plugin.version` keys are written in.

A class's version comes from the metadata of the installed distribution that provides its top-level
package (importlib.metadata); the built-ins report the project's own distribution version; a class
from no installed distribution (a module on the path) reports Connect's "undefined".

Ranges follow Maven's VersionRange as Kafka reads them (PluginVersionUtils.connectorVersionRequirement):
`latest` or no value is no requirement; a bare version `1.2` is the hard requirement `[1.2]`;
`[1.0,2.0)`, `(,1.0]`, `[1.5,)` and unions `(,1.0],[1.2,)` are ranges. Versions compare as Maven's
ComparableVersion does for the usual shapes: numeric parts numerically (`1.10 > 1.9`, `1.0 == 1`),
and a qualifier below the release (`1.0-rc1 < 1.0`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.metadata import PackageNotFoundError, packages_distributions, version

PROJECT = "replikafka"
UNDEFINED = "undefined"
# Maven's well-known qualifiers in their order; anything else sorts after them, alphabetically.
_QUALIFIERS = {"alpha": 0, "a": 0, "beta": 1, "b": 1, "milestone": 2, "m": 2, "rc": 3, "cr": 3, "snapshot": 4,
               "": 5, "ga": 5, "final": 5, "release": 5, "sp": 6}


@cache
def _distributions() -> dict[str, list[str]]:
    return dict(packages_distributions())


def project_version() -> str:
    """The version of this project's own distribution (what the built-in plugins report)."""
    try:
        return version(PROJECT)
    except PackageNotFoundError:  # a source tree that was never installed
        return "0.1.0"


def plugin_version(cls: type) -> str:
    """The version of the distribution that provides `cls` (see the module docstring)."""
    top = cls.__module__.split(".", 1)[0]
    for dist in _distributions().get(top, []):
        try:
            return version(dist)
        except PackageNotFoundError:
            continue
    return UNDEFINED


_NULLS = ((1, 0), (0, 5))


def _key(text: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key of a version: numbers as numbers, qualifiers by Maven's order, trailing zeros and
    release qualifiers dropped (so `1`, `1.0` and `1.0.0-final` are equal)."""
    items: list[tuple[int, int | str]] = []
    for part in re.findall(r"\d+|[A-Za-z]+", text.lower()):
        if part.isdigit():
            items.append((1, int(part)))
        else:
            rank = _QUALIFIERS.get(part)
            items.append((0, rank) if rank is not None else (0, part))
    # Maven's null items: a zero or a release qualifier before a qualifier or at the end counts for nothing.
    kept: list[tuple[int, int | str]] = []
    for i, item in enumerate(items):
        following = items[i + 1:]
        if item in _NULLS and (all(x in _NULLS for x in following) or following[0][0] == 0):
            continue
        kept.append(item)
    return tuple(kept)


def _compare(a: str, b: str) -> int:
    ka, kb = _key(a), _key(b)
    for x, y in zip(ka, kb, strict=False):
        if x != y:
            return _item_compare(x, y)
    if len(ka) == len(kb):
        return 0
    longer, sign = (ka, 1) if len(ka) > len(kb) else (kb, -1)
    # a longer version is greater when its extra part is a number or a qualifier above the release
    extra = longer[min(len(ka), len(kb))]
    above = extra[0] == 1 or (isinstance(extra[1], int) and extra[1] > 5) or isinstance(extra[1], str)
    return sign if above else -sign


def _item_compare(x: tuple[int, int | str], y: tuple[int, int | str]) -> int:
    if x[0] != y[0]:  # a number sorts above a qualifier
        return 1 if x[0] > y[0] else -1
    a, b = x[1], y[1]
    if isinstance(a, int) and isinstance(b, int):
        return (a > b) - (a < b)
    if isinstance(a, str) and isinstance(b, str):
        return (a > b) - (a < b)
    return 1 if isinstance(a, str) else -1  # an unknown qualifier sorts after the known ones


@dataclass(frozen=True)
class Restriction:
    """One interval of a range; None bounds are open-ended."""

    lower: str | None
    lower_inclusive: bool
    upper: str | None
    upper_inclusive: bool

    def contains(self, candidate: str) -> bool:
        if self.lower is not None:
            c = _compare(candidate, self.lower)
            if c < 0 or (c == 0 and not self.lower_inclusive):
                return False
        if self.upper is not None:
            c = _compare(candidate, self.upper)
            if c > 0 or (c == 0 and not self.upper_inclusive):
                return False
        return True

    def __str__(self) -> str:
        if self.lower is not None and self.lower == self.upper and self.lower_inclusive and self.upper_inclusive:
            return f"[{self.lower}]"
        return (("[" if self.lower_inclusive else "(") + (self.lower or "") + "," + (self.upper or "")
                + ("]" if self.upper_inclusive else ")"))


@dataclass(frozen=True)
class VersionRange:
    """A hard Maven version range: the union of its restrictions."""

    restrictions: tuple[Restriction, ...]

    def contains(self, candidate: str) -> bool:
        return any(r.contains(candidate) for r in self.restrictions)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.restrictions)


class InvalidVersionSpec(ValueError):
    """A version or range Maven's VersionRange.createFromVersionSpec refuses."""


_INTERVAL = re.compile(r"\s*([\[(])([^\[\]()]*)([\])])\s*(?:,|$)")


def _restriction(opening: str, body: str, closing: str, spec: str) -> Restriction:
    if "," not in body:
        if opening != "[" or closing != "]" or not body.strip():
            raise InvalidVersionSpec(f"Single version must be surrounded by []: {spec}")
        return Restriction(body.strip(), True, body.strip(), True)
    lower, upper = (p.strip() or None for p in body.split(",", 1))
    if "," in (upper or ""):
        raise InvalidVersionSpec(f"Invalid version range {spec}, only a lower and an upper bound are allowed")
    if lower is not None and upper is not None and _compare(upper, lower) < 0:
        raise InvalidVersionSpec(f"Range defies version ordering: {spec}")
    if (lower is None and opening == "[") or (upper is None and closing == "]"):
        raise InvalidVersionSpec(f"Unbounded range must be open at that end: {spec}")
    return Restriction(lower, opening == "[", upper, closing == "]")


def requirement(spec: str | None) -> VersionRange | None:
    """The range `spec` requires (Kafka's connectorVersionRequirement): None for no value or `latest`;
    a bare version is a hard requirement of exactly it. InvalidVersionSpec with Maven's message."""
    if spec is None or spec == "latest":
        return None
    text = spec.strip()
    if not text:
        raise InvalidVersionSpec("Empty version specification")
    if text[0] not in "[(":
        if re.search(r"[\[\](),]", text):
            raise InvalidVersionSpec(f"Invalid version specification: {text}")
        return VersionRange((Restriction(text, True, text, True),))
    restrictions: list[Restriction] = []
    position = 0
    while position < len(text):
        match = _INTERVAL.match(text, position)
        if match is None:
            raise InvalidVersionSpec(f"Unbounded range: {text}")
        restrictions.append(_restriction(match.group(1), match.group(2), match.group(3), text))
        position = match.end()
    return VersionRange(tuple(restrictions))


def version_spec_validator(_name: str, value: object) -> str | None:
    """The ConfigDef validator of the `*.plugin.version` keys (Kafka's PluginVersionValidator)."""
    try:
        requirement(None if value is None else str(value))
    except InvalidVersionSpec as exc:
        return str(exc)
    return None


def mismatch(class_name: str, installed: str, spec: str | None) -> str | None:
    """Kafka's message when the installed version of `class_name` is outside `spec`, else None (also
    for an invalid spec, which the key's validator reports)."""
    try:
        wanted = requirement(spec)
    except InvalidVersionSpec:
        return None
    if wanted is None or wanted.contains(installed):
        return None
    return f"Plugin {class_name} has version {installed} which does not match the required version range {wanted}"
