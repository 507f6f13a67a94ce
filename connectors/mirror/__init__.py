"""MirrorMaker 2 connectors: source (data), checkpoint (group offsets), heartbeat."""
