"""The round-trip probe (pyconnect/kafka/round_trip.py) on a fake clock: how many samples it takes, and that
its estimate never reads a link as closer than its fastest answer."""

from __future__ import annotations

from typing import Any

import pytest

from pyconnect.kafka import round_trip
from pyconnect.kafka.round_trip import MIN_SAMPLES, SAMPLE_BUDGET, SAMPLES, WARM_UPS, client_round_trip


class Clock:
    """time.perf_counter and time.sleep, advanced by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Client:
    """A client whose metadata requests take the given seconds, one after the other (the last repeats)."""

    def __init__(self, clock: Clock, times: list[float]) -> None:
        self.clock, self.times, self.calls = clock, times, 0

    def list_topics(self, _topic: str, timeout: float) -> Any:
        self.clock.now += self.times[min(self.calls, len(self.times) - 1)]
        self.calls += 1
        return None


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(round_trip, "time", fake)
    return fake


def test_a_lan_takes_every_sample_and_keeps_the_fastest(clock: Clock) -> None:
    client = Client(clock, [0.05, 0.004, 0.0003, 0.002, 0.0004, 0.0009])
    assert client_round_trip(client, "t") == pytest.approx(0.0003)
    assert client.calls == WARM_UPS + SAMPLES


@pytest.mark.parametrize(("rtt", "samples"), [(0.2, 2), (0.1, 2), (0.05, 2), (0.02, 5)])
def test_a_far_link_stops_sampling_after_the_budget(clock: Clock, rtt: float, samples: int) -> None:
    """The sampling stops once it has taken SAMPLE_BUDGET and MIN_SAMPLES samples (a far link's samples all
    read its round trip): at 200 ms two samples instead of five, 0.6 s less start-up. The first sample after
    the warm-up pays a second connection's set-up (2 round trips), the second does not."""
    client = Client(clock, [4 * rtt, 2 * rtt, rtt])
    assert client_round_trip(client, "t") == pytest.approx(rtt)
    assert client.calls == WARM_UPS + max(samples, MIN_SAMPLES)
    assert clock.now <= 4 * rtt + 2 * rtt + max(SAMPLE_BUDGET, rtt) + 0.05


def test_a_busy_stretch_on_a_lan_is_still_sampled_past(clock: Clock) -> None:
    """Two slow answers from a loaded machine, then quick ones: the estimate is the quick one, under LAN_RTT."""
    client = Client(clock, [0.01, 0.04, 0.03, 0.0004])
    assert client_round_trip(client, "t") == pytest.approx(0.0004)
