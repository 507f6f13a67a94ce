"""What can go wrong in a herder request, in Connect's terms and without HTTP.

The REST layer (`rest.errors`) gives each kind its status code; the runtime only says which kind
of failure it is and Connect's message for it.
"""

from __future__ import annotations


class HerderError(Exception):
    """A herder request that cannot be carried out; `message` is the text Connect gives the caller."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(HerderError):
    """No such connector, task, plugin, logger or log level (Connect's NotFoundException)."""


class Conflict(HerderError):
    """The request clashes with the cluster's state: the connector already exists, or a rebalance is
    under way (Connect's AlreadyExistsException, ConflictException)."""


class BadConfig(HerderError):
    """An invalid connector config or an otherwise malformed request (Connect's BadRequestException)."""


class Forbidden(HerderError):
    """The worker's configuration disallows the request, e.g. topic tracking switched off."""


class RequestTarget(HerderError):
    """Another worker has to serve the request (Connect's RequestTargetException): `url` is its REST
    URL, or None while it is not known."""

    def __init__(self, message: str, url: str | None) -> None:
        super().__init__(message)
        self.url = url


class NotLeader(RequestTarget):
    """A leader-only write reached a follower; `url` is the leader's (Connect's NotLeaderException)."""


class NotAssigned(RequestTarget):
    """The task runs on another worker; `url` is its owner's (Connect's NotAssignedException)."""
