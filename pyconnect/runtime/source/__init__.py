"""Source tasks: the runners, how batches reach Kafka, which offsets are safe to commit, transactions and fencing."""
