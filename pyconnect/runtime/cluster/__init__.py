"""Cluster coordination: the workers' membership, the leader's assignment, task hand-over, one identity per worker."""
