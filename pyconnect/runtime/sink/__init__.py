"""Sink tasks: the runner, its consumer's offsets, record conversion and errant-record reporting."""
