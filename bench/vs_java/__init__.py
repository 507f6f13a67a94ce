"""Parts of bench/vs_java_mm2.py: the two replicators as processes (replicators), the records on both clusters
(traffic), and one measurement per table row (rows)."""
