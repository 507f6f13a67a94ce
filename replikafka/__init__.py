"""The application: the `replikafka` command (distributed workers, dedicated MirrorMaker mode, offset
translation, Spark backfill, the demo). It sits above the REST layer and the connectors and wires
them together; nothing below imports it (see docs/architecture.md)."""
