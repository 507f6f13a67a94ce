"""Metrics: the Prometheus endpoint, the worker's figures and their recent history."""
