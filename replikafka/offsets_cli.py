"""`replikafka offsets translate`: the fail-over step of a runbook.

    replikafka offsets translate --target-bootstrap B:9092 --source-alias A --group orders-app [--apply]

Prints the group's offsets on the target translated from the checkpoints MirrorCheckpointConnector
wrote there (table or --format json). With --apply they are committed to the same group on the
target, refused while the group has active members there. Exit codes: 0 done, 1 cluster/command
error, 3 no checkpoints for the group, 4 group active on the target.
"""

from __future__ import annotations

import argparse
import json
import sys

from pyconnect.config.properties import ConfigFileError, load_properties
from pyconnect.kafka.clients import KafkaClientError
from pyconnect.kafka.config import to_librdkafka


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    offsets = sub.add_parser("offsets", help="consumer-group offset tools for fail-over")
    actions = offsets.add_subparsers(dest="action", required=True)
    tr = actions.add_parser("translate", help="translate a group's offsets from checkpoints on the target")
    tr.add_argument("--target-bootstrap", required=True, help="bootstrap servers of the target cluster")
    tr.add_argument("--source-alias", required=True, help="alias of the cluster the group consumed from")
    tr.add_argument("--group", required=True)
    tr.add_argument("--apply", action="store_true", help="commit the translated offsets to the group on the target")
    tr.add_argument("--format", choices=("table", "json"), default="table")
    tr.add_argument("--command-config", help="client properties for the target (security settings, and "
                    "replication.policy.* as MirrorClientConfig reads them)")
    tr.add_argument("--separator", help="replication.policy.separator (default: the command config's, else '.')")


def run(args: argparse.Namespace) -> int:
    from connectors.mirror.client import MirrorClient
    from connectors.mirror.config import DEFAULT_POLICY
    from connectors.mirror.policy import load_policy

    conf = {"bootstrap.servers": args.target_bootstrap}
    try:
        if args.command_config:
            conf.update(load_properties(args.command_config).values())
        # MirrorClientConfig's policy keys configure the policy; they are no client settings.
        policy_conf = {k: conf.pop(k) for k in list(conf) if k.startswith("replication.policy.")}
        if args.separator is not None:
            policy_conf["replication.policy.separator"] = args.separator
        policy = load_policy(policy_conf.get("replication.policy.class", DEFAULT_POLICY), policy_conf)
        client = MirrorClient(to_librdkafka(conf, "admin"), policy)
        checkpoints = client.checkpoints(args.source_alias, args.group)
    except (ConfigFileError, KafkaClientError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not checkpoints:
        print(f"error: no checkpoints for group {args.group!r} from cluster {args.source_alias!r} in "
              f"{policy.checkpoints_topic(args.source_alias)} on {args.target_bootstrap} (unknown group, "
              "or MirrorCheckpointConnector has not emitted yet)", file=sys.stderr)
        return 3
    rows = sorted(checkpoints.values(), key=lambda c: (c.topic, c.partition))
    if args.format == "json":
        print(json.dumps([{"topic": c.topic, "partition": c.partition, "upstream_offset": c.upstream_offset,
                           "offset": c.downstream_offset} for c in rows], indent=2))
    else:
        print(f"{'TOPIC':<40} {'PARTITION':>9} {'UPSTREAM':>12} {'TARGET OFFSET':>14}")
        for c in rows:
            print(f"{c.topic:<40} {c.partition:>9} {c.upstream_offset:>12} {c.downstream_offset:>14}")
    if not args.apply:
        return 0
    state = client.admin.group_state(args.group)
    if state not in (None, "EMPTY"):
        print(f"error: group {args.group!r} is active on the target (state {state}); stop its consumers "
              "there before applying offsets", file=sys.stderr)
        return 4
    try:
        client.admin.alter_group_offsets(args.group, {(c.topic, c.partition): c.downstream_offset for c in rows})
    except KafkaClientError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"applied {len(rows)} offset(s) to group {args.group!r} on {args.target_bootstrap}", file=sys.stderr)
    return 0
