"""The preflight checks of exactly-once source support, with Connect's messages
(DistributedHerder.validateSourceConnectorConfig): they add errors to `exactly.once.support` and
`transaction.boundary` of a validation result, so `/config/validate` shows them on those keys and a
connector write is refused with them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pyconnect.api.config import ConfigValue
from pyconnect.api.connector import ConnectorTransactionBoundaries, ExactlyOnceSupport, SourceConnector

WORKER_DISABLED = "This worker does not have exactly-once source support enabled."
NO_PREFLIGHT_API = (
    "The connector does not implement the API required for preflight validation of exactly-once source "
    "support. Please consult the documentation for the connector to determine whether it supports exactly-once "
    "semantics, and then consider reconfiguring the connector to use the value \"requested\" for this property "
    "(which will disable this preflight check and allow the connector to be created).")
UNSUPPORTED = "The connector does not support exactly-once semantics with the provided configuration."
NO_CONNECTOR_BOUNDARIES = (
    "The connector does not support connector-defined transaction boundaries with the given configuration. "
    "Please reconfigure it to use a different transaction boundary definition.")


def _unexpected(exc: Exception) -> str:
    text = str(exc).strip()
    if not text:
        return "An unexpected error occurred during validation; please see the worker logs for more details."
    return f"An unexpected error occurred during validation: {text}"


def _ask(question: Callable[[], Any]) -> tuple[Any, str | None]:
    try:
        return question(), None
    except Exception as exc:
        return None, _unexpected(exc)


def _required_errors(connector: SourceConnector, config: Mapping[str, str], exactly_once: bool) -> list[str]:
    errors = [] if exactly_once else [WORKER_DISABLED]
    support, failure = _ask(lambda: connector.exactly_once_support(config))
    if failure is not None:
        errors.append(failure)
    elif support is None:
        errors.append(NO_PREFLIGHT_API)
    elif support != ExactlyOnceSupport.SUPPORTED:
        errors.append(UNSUPPORTED)
    return errors


def _boundary_errors(connector: SourceConnector, config: Mapping[str, str]) -> list[str]:
    boundaries, failure = _ask(lambda: connector.can_define_transaction_boundaries(config))
    if failure is not None:
        return [failure]
    return [] if boundaries == ConnectorTransactionBoundaries.SUPPORTED else [NO_CONNECTOR_BOUNDARIES]


def exactly_once_errors(connector: SourceConnector, config: Mapping[str, str], values: dict[str, ConfigValue],
                        exactly_once: bool) -> None:
    """Add the preflight errors to `values` (checked only where the value itself is valid, as in Connect)."""
    support, boundary = values.get("exactly.once.support"), values.get("transaction.boundary")
    if support is not None and not support.errors and str(support.value).strip().lower() == "required":
        support.errors.extend(_required_errors(connector, config, exactly_once))
    if boundary is not None and not boundary.errors and str(boundary.value).strip().lower() == "connector":
        boundary.errors.extend(_boundary_errors(connector, config))
