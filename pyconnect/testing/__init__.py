"""Embedded local brokers for tests, the demo and benchmarks (not used by the worker runtime)."""
