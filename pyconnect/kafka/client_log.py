"""librdkafka's log lines, as each client hands them to Python logging (logger "librdkafka").

Every client gets its own `ClientLog` (pyconnect.kafka.clients.client_conf). Lines below WARNING pass
through unchanged (e.g. `debug=protocol` output). Lines at WARNING and above are librdkafka's retried
trouble (connection refused, name not resolved, TLS handshake failed): a client of a cluster that is down
logs one every few milliseconds. They are folded (pyconnect.kafka.log_folding), process-wide, per cluster,
address and cause, into WARNING lines that name the cluster as the operator knows it
(pyconnect.kafka.cluster_labels), the address, the cause and how many lines each stands for.

Invariant: every line librdkafka logs reaches logger "librdkafka" with its full text (at DEBUG for the
folded ones), and the WARNING lines about one cluster, address and cause are at most one per fold
interval (FOLD_INTERVAL_S unless `set_fold_interval` changed it), each with label, address and count.
"""

from __future__ import annotations

import logging
import re

from pyconnect.kafka.cluster_labels import describe
from pyconnect.kafka.log_folding import DEFAULT_INTERVAL_S, LogFolder, Report

FOLD_INTERVAL_S = DEFAULT_INTERVAL_S
LOGGER = logging.getLogger("librdkafka")

_FOLDER = LogFolder(FOLD_INTERVAL_S)
# The runtime sets enable.gapless.guarantee on purpose (runtime/source/run_acks.py); librdkafka warns
# at every client start that the property is experimental.
_KNOWN_CONFIG_WARNING = "enable.gapless.guarantee is experimental"
_THREAD = re.compile(r"^\[thrd:[^\]]*\]:\s*")
# librdkafka's broker names: "host:port/bootstrap", "host:port/<node id>", with "proto://" before them
# when the protocol is not plaintext.
_BROKER = re.compile(r"^(?:[a-z_]+://)?(?P<address>[^\s/]+)/(?:bootstrap|-?\d+):\s*")
# "(after 0ms in state CONNECT)", "(after 3ms in state CONNECT, 4 identical error(s) suppressed)"
_AFTER = re.compile(r"\s*\(after \d+ms in state .*\)$")
_DIGITS = re.compile(r"\d+")


def set_fold_interval(seconds: float) -> float:
    """Fold repeated lines over `seconds` from now on; returns the previous interval (tests shorten it)."""
    previous = _FOLDER.interval
    _FOLDER.interval = seconds
    return previous


class ClientLog:
    """What librdkafka calls `logger` for one client: it only calls `log(level, format, facility,
    client name, text)`, the way it would call a `logging.Logger`."""

    def __init__(self, bootstrap: str, folder: LogFolder | None = None) -> None:
        """`folder`: the process-wide one unless a test gives its own (with its own clock)."""
        self._bootstrap = bootstrap
        self._folder = folder if folder is not None else _FOLDER

    def log(self, level: int, msg: str, *args: object) -> None:
        if level < logging.WARNING:
            LOGGER.log(level, msg, *args)
            return
        facility, text = (str(args[0]), str(args[2])) if len(args) == 3 else ("", msg % args if args else msg)
        if _KNOWN_CONFIG_WARNING in text:
            return
        LOGGER.debug(msg, *args)
        text = _THREAD.sub("", text)
        broker = _BROKER.match(text)
        address = broker.group("address") if broker else self._bootstrap
        cause = _AFTER.sub("", text[broker.end():] if broker else text)
        cluster = describe(self._bootstrap)
        report = self._folder.offer((cluster, address, facility, _DIGITS.sub("N", cause)))
        if report is not None:
            LOGGER.warning("%s (%s): %s [%s]", cluster, address, cause, _counted(report, self._folder.interval))


def _counted(report: Report, interval: float) -> str:
    if report.first:
        return f"1 time; repeats are counted and reported every {interval:.0f}s, " \
               "each line at DEBUG on logger librdkafka"
    times = "1 time" if report.count == 1 else f"{report.count} times"
    return f"{times} in the last {report.seconds:.0f}s"
