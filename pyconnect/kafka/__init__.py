"""Everything that touches confluent-kafka lives in this package."""
