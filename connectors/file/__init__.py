"""Connect's file connectors (org.apache.kafka.connect.file): the quickstart's source and sink."""
