"""Log levels by logger, per flow and per worker of a process."""
