"""Client settings that load code or run commands, refused in connector configs unless the worker names them.

librdkafka (CONFIGURATION.md, "Global configuration properties") has settings that make the client process
load a shared library or run a shell command. A connector config reaches the clients its tasks build
(Connect's `producer.override.*`, `consumer.override.*`, `admin.override.*`, and MirrorMaker 2's
`source.cluster.*`, `target.cluster.*`, `consumer.*`, `producer.*`, `admin.*`, `<side>.<role>.*`, ...), and
whoever reaches the REST API (unauthenticated by default, as Connect's) writes connector configs. Java's
client has no such settings (its class-loading keys are Java-only and never reach librdkafka: dropped, see
pyconnect.kafka.config._JAVA_ONLY, or refused, see pyconnect.kafka.java_settings.UNSUPPORTED), so Connect's
override policies were never written with them in mind.

Invariant: no connector config key naming one of UNSAFE_SETTINGS (the key itself, or any prefix followed by
`.` and the name) reaches a client unless the worker's
`connector.client.config.override.unsafe.allowlist` names that setting. The worker's own top-level client
settings (worker.properties, written by the operator) are not connector configs and are not checked.

The runtime checks a connector config against its own worker's allowlist. Connectors (MirrorMaker 2's
client_config) have no worker config: they read the process-wide allowlist that every worker config built in
the process narrows (`allow`): the settings *every* worker of the process allows. A dedicated MirrorMaker
process runs a herder per flow, each with its target cluster's settings, so a flow whose worker does not
allow a setting is never given it by another flow's wider allowlist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pyconnect.api.config import ConfigException

#: Each setting that loads code or runs a command, with why.
UNSAFE_SETTINGS: dict[str, str] = {
    # dlopen()s each library named: arbitrary native code in the worker process.
    "plugin.library.paths": "loads the native libraries it names into the worker process",
    # Run through the shell on client creation and at every relogin.
    "sasl.kerberos.kinit.cmd": "is a shell command the client runs",
    # Both are pasted into the default kinit command line, which the shell runs: a quote in either injects a
    # command (`%{sasl.kerberos.keytab}` / `%{sasl.kerberos.principal}` in the default).
    "sasl.kerberos.keytab": "is substituted into the shell command the client runs (sasl.kerberos.kinit.cmd)",
    "sasl.kerberos.principal": "is substituted into the shell command the client runs (sasl.kerberos.kinit.cmd)",
    # Path of an OpenSSL engine library, which is loaded into the process.
    "ssl.engine.location": "loads an OpenSSL engine library into the worker process",
    # Picks the OpenSSL engine to load (by default the `dynamic` engine, which loads ssl.engine.location).
    "ssl.engine.id": "selects the OpenSSL engine loaded into the worker process",
    # OpenSSL 3 providers are shared libraries loaded from the OpenSSL modules directory.
    "ssl.providers": "loads OpenSSL provider modules into the worker process",
    # Set through librdkafka's C API only (a pointer and interceptor callbacks): a string must never reach them.
    "ssl_engine_callback_data": "is data handed to OpenSSL engine code (librdkafka's C API only)",
    "interceptors": "installs interceptor code (librdkafka's C API only)",
}

#: The worker setting naming the UNSAFE_SETTINGS connector configs may carry.
UNSAFE_ALLOWLIST_KEY = "connector.client.config.override.unsafe.allowlist"

_allowed: frozenset[str] | None = None  # None: no worker config built yet, nothing is allowed


def allow(names: Iterable[str]) -> None:
    """Narrow the process-wide allowlist to `names` (a worker config's; see the module docstring)."""
    global _allowed
    _allowed = frozenset(names) if _allowed is None else _allowed & frozenset(names)


def allowed() -> frozenset[str]:
    """The process-wide allowlist: what every worker config built so far allows."""
    return _allowed or frozenset()


def unsafe_setting(key: str) -> str | None:
    """The UNSAFE_SETTINGS name `key` sets (the name itself or `<any prefix>.<name>`), else None."""
    for name in UNSAFE_SETTINGS:
        if key == name or key.endswith("." + name):
            return name
    return None


def unsafe_message(key: str, name: str) -> str:
    """Why `key` (setting `name`) is refused, and how an operator allows it."""
    return (f"'{key}' is refused: {name} {UNSAFE_SETTINGS[name]}. Connector configs may set it only if the "
            f"worker's {UNSAFE_ALLOWLIST_KEY} names {name}.")


def unsafe_errors(config: Mapping[str, object], permitted: frozenset[str] | None = None) -> dict[str, str]:
    """key -> message for each key of `config` that sets an unsafe setting not in `permitted` (default:
    the installed allowlist)."""
    names = allowed() if permitted is None else permitted
    out = {}
    for key in config:
        name = unsafe_setting(key)
        if name is not None and name not in names:
            out[key] = unsafe_message(key, name)
    return out


def refuse_unsafe(config: Mapping[str, object], permitted: frozenset[str] | None = None) -> None:
    """Raise ConfigException naming every refused key of `config` (see unsafe_errors)."""
    errors = unsafe_errors(config, permitted)
    if errors:
        raise ConfigException("\n".join(errors.values()), {k: [m] for k, m in errors.items()})
