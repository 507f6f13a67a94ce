"""`replikafka offsets translate`: the fail-over step of a runbook.

    replikafka offsets translate --target-bootstrap B:9092 --source-alias A --group orders-app [--apply]
    replikafka offsets translate --target-bootstrap B:9092 --source-alias A --group-regex 'orders-.*' [--apply]

Prints the group's offsets on the target translated from the checkpoints MirrorCheckpointConnector
wrote there (table or --format json). With --group-regex every group whose whole id matches is
translated from one read of the checkpoints topic (KIP-1239's batch translation), printed in Java's
shape: group -> topic-partition -> offset. With --apply the offsets are committed to the same group(s)
on the target, each refused while that group has active members there. Exit codes: 0 done, 1
cluster/command error, 3 no checkpoints for the group (or no group matches), 4 a group active on the
target (with a regex, the other groups are still applied).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import TYPE_CHECKING

from pyconnect.config.properties import ConfigFileError, load_properties
from pyconnect.kafka.clients import KafkaClientError
from pyconnect.kafka.config import to_librdkafka

if TYPE_CHECKING:
    from connectors.mirror.client import MirrorClient
    from connectors.mirror.formats import Checkpoint

    GroupCheckpoints = dict[str, dict[tuple[str, int], Checkpoint]]


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    offsets = sub.add_parser("offsets", help="consumer-group offset tools for fail-over")
    actions = offsets.add_subparsers(dest="action", required=True)
    tr = actions.add_parser("translate", help="translate consumer-group offsets from checkpoints on the target")
    tr.add_argument("--target-bootstrap", required=True, help="bootstrap servers of the target cluster")
    tr.add_argument("--source-alias", required=True, help="alias of the cluster the group consumed from")
    which = tr.add_mutually_exclusive_group(required=True)
    which.add_argument("--group", help="the consumer group to translate")
    which.add_argument("--group-regex", help="translate every group whose whole id matches this regular "
                       "expression, from one read of the checkpoints topic (Kafka's KIP-1239)")
    tr.add_argument("--apply", action="store_true",
                    help="commit the translated offsets to the group(s) on the target")
    tr.add_argument("--format", choices=("table", "json"), default="table")
    tr.add_argument("--command-config", help="client properties for the target (security settings, and "
                    "replication.policy.* as MirrorClientConfig reads them)")
    tr.add_argument("--separator", help="replication.policy.separator (default: the command config's, else '.')")


def _client(args: argparse.Namespace) -> MirrorClient:
    from connectors.mirror.client import MirrorClient
    from connectors.mirror.config import DEFAULT_POLICY
    from connectors.mirror.policy import load_policy

    conf = {"bootstrap.servers": args.target_bootstrap}
    if args.command_config:
        conf.update(load_properties(args.command_config).values())
    # MirrorClientConfig's policy keys configure the policy; they are no client settings.
    policy_conf = {k: conf.pop(k) for k in list(conf) if k.startswith("replication.policy.")}
    if args.separator is not None:
        policy_conf["replication.policy.separator"] = args.separator
    policy = load_policy(policy_conf.get("replication.policy.class", DEFAULT_POLICY), policy_conf)
    return MirrorClient(to_librdkafka(conf, "admin"), policy)


def run(args: argparse.Namespace) -> int:
    try:
        pattern = re.compile(args.group_regex) if args.group_regex is not None else None
    except re.error as exc:
        print(f"error: --group-regex {args.group_regex!r} is not a valid regular expression: {exc}",
              file=sys.stderr)
        return 1
    try:
        client = _client(args)
        if pattern is None:
            found = {args.group: client.checkpoints(args.source_alias, args.group)}
        else:
            found = client.checkpoints_by_group(args.source_alias, pattern)
    except (ConfigFileError, KafkaClientError, ValueError, TimeoutError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    groups = {g: cps for g, cps in sorted(found.items()) if cps}
    if not groups:
        what = f"group {args.group!r}" if pattern is None else f"any group matching {args.group_regex!r}"
        print(f"error: no checkpoints for {what} from cluster {args.source_alias!r} in "
              f"{client.policy.checkpoints_topic(args.source_alias)} on {args.target_bootstrap} (unknown group, "
              "or MirrorCheckpointConnector has not emitted yet)", file=sys.stderr)
        return 3
    if pattern is None:
        _print_group(groups[args.group], args.format)
    else:
        _print_groups(groups, args.format)
    return _apply(client, groups, args.target_bootstrap) if args.apply else 0


def _rows(cps: dict[tuple[str, int], Checkpoint]) -> list[Checkpoint]:
    return sorted(cps.values(), key=lambda c: (c.topic, c.partition))


def _print_group(cps: dict[tuple[str, int], Checkpoint], fmt: str) -> None:
    rows = _rows(cps)
    if fmt == "json":
        print(json.dumps([{"topic": c.topic, "partition": c.partition, "upstream_offset": c.upstream_offset,
                           "offset": c.downstream_offset} for c in rows], indent=2))
        return
    print(f"{'TOPIC':<40} {'PARTITION':>9} {'UPSTREAM':>12} {'TARGET OFFSET':>14}")
    for c in rows:
        print(f"{c.topic:<40} {c.partition:>9} {c.upstream_offset:>12} {c.downstream_offset:>14}")


def _print_groups(groups: GroupCheckpoints, fmt: str) -> None:
    """Java's Map<String, Map<TopicPartition, OffsetAndMetadata>>: a TopicPartition prints as `topic-partition`."""
    if fmt == "json":
        print(json.dumps({g: {f"{c.topic}-{c.partition}": c.downstream_offset for c in _rows(cps)}
                          for g, cps in groups.items()}, indent=2))
        return
    print(f"{'GROUP':<30} {'TOPIC':<40} {'PARTITION':>9} {'UPSTREAM':>12} {'TARGET OFFSET':>14}")
    for g, cps in groups.items():
        for c in _rows(cps):
            print(f"{g:<30} {c.topic:<40} {c.partition:>9} {c.upstream_offset:>12} {c.downstream_offset:>14}")


def _apply(client: MirrorClient, groups: GroupCheckpoints, bootstrap: str) -> int:
    """Commit each group's offsets unless it is active on the target; reports per group. Returns 1 if a
    commit failed, else 4 if a group was refused, else 0."""
    try:
        states = client.admin.group_states(list(groups))  # one DescribeGroups for all of them
    except KafkaClientError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    code = 0
    for group, cps in groups.items():
        state = states.get(group)
        if state not in (None, "EMPTY"):
            print(f"error: group {group!r} is active on the target (state {state}); stop its consumers "
                  "there before applying offsets", file=sys.stderr)
            code = code or 4
            continue
        rows = _rows(cps)
        try:
            client.admin.alter_group_offsets(group, {(c.topic, c.partition): c.downstream_offset for c in rows},
                                             metadata={(c.topic, c.partition): c.metadata for c in rows})
        except KafkaClientError as exc:
            print(f"error: {exc}", file=sys.stderr)
            code = 1
            continue
        print(f"applied {len(rows)} offset(s) to group {group!r} on {bootstrap}", file=sys.stderr)
    return code
