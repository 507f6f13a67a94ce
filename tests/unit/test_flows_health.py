"""The combined health of a multi-flow process (rest.flows_root): the worst flow's status wins, in Connect's
order of severity (KIP-1017: unhealthy 500 > starting 503 > healthy 200), and the message names each flow that is
not healthy with its own message. End to end: tests/test_health_topologies.py."""

from __future__ import annotations

from pyconnect.runtime.results import WorkerHealth
from rest.flows_root import HEALTHY, combined_health

OK = WorkerHealth("healthy", HEALTHY)
STARTING = WorkerHealth("starting", "Worker is still starting up.")
LOST = WorkerHealth("unhealthy", "Worker has not been able to read the cluster's membership topic within the "
                                 "session timeout.")


def test_all_healthy_names_every_flow() -> None:
    found = combined_health({"A->B": OK, "C->B": OK, "D->B": OK})
    assert found.status == "healthy"
    assert found.message == "All flows (A->B, C->B, D->B) have completed startup and are ready to handle requests."


def test_the_worst_status_wins_and_the_message_names_the_flows() -> None:
    starting = combined_health({"A->B": OK, "C->B": STARTING})
    assert starting.status == "starting" and starting.message.startswith("Flow C->B not healthy. C->B: Worker is")
    both = combined_health({"A->B": LOST, "C->B": STARTING, "D->B": OK})
    assert both.status == "unhealthy" and both.message.startswith("Flows A->B, C->B not healthy.")
    assert "D->B" not in both.message


def test_a_healthy_flow_with_a_note_keeps_its_note() -> None:
    noted = WorkerHealth("healthy", HEALTHY[:-1] + ", but cannot connect to cluster X: SSL handshake failed")
    found = combined_health({"A->B": OK, "C->B": noted})
    assert found.status == "healthy" and "C->B: " + noted.message in found.message
