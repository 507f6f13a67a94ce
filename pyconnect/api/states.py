"""The two state vocabularies of Connect, kept apart.

`TargetState` is what a user asked for (written to the config topic); `State` is what a connector or
task is doing (written to the status topic and shown by `GET /connectors/{c}/status`). A connector
whose target is STARTED is RUNNING, or FAILED, or UNASSIGNED while no worker runs it.
"""

from __future__ import annotations

from enum import StrEnum


class TargetState(StrEnum):
    """Connect's TargetState: the connector's state as requested through the REST API."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


class State(StrEnum):
    """Connect's AbstractStatus.State: a connector's or task's state as its worker reports it."""

    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    STOPPED = "STOPPED"
    DESTROYED = "DESTROYED"
