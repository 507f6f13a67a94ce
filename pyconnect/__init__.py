"""pyconnect: a Kafka Connect compatible worker runtime in Python (distribution: replikafka)."""

__version__ = "0.1.0"
