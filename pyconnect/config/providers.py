"""Connect config providers: `${env:VAR}`, `${file:/path/to.properties:key}` and
`${directory:/dir:file}` (the content of one file, e.g. a mounted Kubernetes Secret key).

As in Connect, stored configs keep the placeholders; values are resolved only when a connector or
task starts (`resolve_config`), and task configs derived from resolved values get the placeholders
back before they are stored (`restore_placeholders`), so secrets never reach the config topic or REST.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from pyconnect.config.properties import ConfigFileError, load_properties

_PROVIDER = re.compile(r"\$\{(file|env|directory):([^}]*)\}")


class ProviderError(ValueError):
    """A placeholder that cannot be resolved (the message never contains a resolved value)."""


def resolve(value: str) -> str:
    def replace(match: re.Match[str]) -> str:
        kind, ref = match.group(1), match.group(2)
        if kind == "env":
            if ref not in os.environ:
                raise ProviderError(f"environment variable {ref} is not set")
            return os.environ[ref]
        file, _, name = ref.rpartition(":")
        if kind == "directory":
            target = os.path.join(file, name)
            try:
                with open(target, encoding="utf-8") as handle:
                    return handle.read().rstrip("\n")
            except OSError as exc:
                raise ProviderError(f"cannot read {target}: {exc.strerror}") from None
        try:
            values = load_properties(file).values()
        except ConfigFileError as exc:
            raise ProviderError(f"config provider file: {exc.reason}") from None
        if name not in values:
            raise ProviderError(f"key {name!r} not found in {file}")
        return values[name]
    return _PROVIDER.sub(replace, value)


def has_placeholder(value: str) -> bool:
    return _PROVIDER.search(value) is not None


def resolve_config(config: Mapping[str, str]) -> dict[str, str]:
    """Every placeholder resolved; raises ProviderError naming the key."""
    out = {}
    for key, value in config.items():
        try:
            out[key] = resolve(value) if has_placeholder(value) else value
        except ProviderError as exc:
            raise ProviderError(f"{key}: {exc}") from None
    return out


def restore_placeholders(derived: Mapping[str, str], raw: Mapping[str, str]) -> dict[str, str]:
    """Put the raw `${...}` back wherever a derived config carries a value resolved from one."""
    resolved = {resolve(v): v for v in raw.values() if has_placeholder(v)}
    return {k: resolved.get(v, v) for k, v in derived.items()}
