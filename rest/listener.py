"""The REST listener's socket, bound before the process joins any cluster.

Invariants:

* A process binds its REST listener before it creates a worker (which creates the internal topics and
  then joins the group). A process whose port is taken therefore exits with `ListenerBindError`
  without having written a single record to any cluster: it never claims leadership, never takes a
  task, never disturbs the process that owns the port (Java Connect fails the same way, at start,
  with "Unable to initialize REST server").
* Every entry of `listeners` and of `admin.listeners` is bound (all or none) before the worker exists.
* The socket bound here is the one that serves: it is handed to uvicorn (`Server.run(sockets=...)`),
  so no other process can take the port between the check and the serving.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from pyconnect.config.worker import RestListener

# The listen backlog uvicorn uses by default.
BACKLOG = 2048


class ListenerBindError(Exception):
    """The REST listener could not be bound (address taken, not local, not resolvable) or served (its TLS
    certificate or key does not load, the server did not start)."""


@dataclass(frozen=True)
class BoundListener:
    """A listening socket for one REST listener, not yet served."""

    scheme: str
    socket: socket.socket

    @property
    def host(self) -> str:
        """The address actually bound (0.0.0.0 for every interface)."""
        return str(self.socket.getsockname()[0])

    @property
    def port(self) -> int:
        """The port actually bound (the listener's, or the one the OS chose for port 0)."""
        return int(self.socket.getsockname()[1])

    @property
    def url(self) -> str:
        """The base URL this process listens on, with the host it bound (never `http://:8083`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    def close(self) -> None:
        """Release the port (for a process that stops before it serves)."""
        self.socket.close()


def bind_listener(listener: RestListener) -> BoundListener:
    """Bind and listen on `listener`'s host and port; ListenerBindError naming the address otherwise."""
    family = socket.AF_INET6 if ":" in listener.host else socket.AF_INET
    address = f"{listener.scheme}://{listener.host}:{listener.port}"
    try:
        # create_server sets SO_REUSEADDR (a restarted process can bind while old connections are in
        # TIME_WAIT) but never SO_REUSEPORT: a port another process listens on stays refused.
        sock = socket.create_server((listener.host, listener.port), family=family, backlog=BACKLOG)
    except OSError as exc:
        # create_server appends the address tuple to strerror; the message names the listener already.
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise ListenerBindError(f"Unable to initialize REST server: cannot bind the REST listener {address}: "
                                f"{reason}") from exc
    return BoundListener(listener.scheme, sock)


@dataclass(frozen=True)
class BoundListeners:
    """Every REST listener of one process, bound: `listeners` (the API) and `admin.listeners` (/admin)."""

    main: list[BoundListener]
    admin: list[BoundListener]

    @property
    def url(self) -> str:
        """The first listener's URL (the one a process logs and advertises by default)."""
        return self.main[0].url

    @property
    def urls(self) -> str:
        """Every URL, for the start-up line; the admin listeners marked."""
        return ", ".join([x.url for x in self.main] + [f"{x.url} (admin)" for x in self.admin])

    def close(self) -> None:
        """Release every port (for a process that stops before it serves)."""
        for bound in self.main + self.admin:
            bound.close()


def bind_listeners(main: Sequence[RestListener], admin: Sequence[RestListener] = ()) -> BoundListeners:
    """Bind every listener, or none: ListenerBindError naming the first that fails, the others released."""
    bound: list[BoundListener] = []
    try:
        for listener in [*main, *admin]:
            bound.append(bind_listener(listener))
    except ListenerBindError:
        for b in bound:
            b.close()
        raise
    return BoundListeners(bound[:len(main)], bound[len(main):])
