"""The chart's rack init step: the pod's node zone label, as a properties file the process reads.

Strimzi's KafkaMirrorMaker2 `spec.rack.topologyKey` runs an init container that reads the label of the node
the pod was scheduled on from the Kubernetes API (its service account may `get` nodes: a ClusterRole) and
writes it where the worker picks it up as `client.rack`. This does the same for the chart:

    python -m replikafka.rack_init /etc/replikafka/rack/rack.properties

reads NODE_NAME (the downward API's spec.nodeName), TOPOLOGY_KEY (e.g. topology.kubernetes.io/zone) and the
in-cluster API address (KUBERNETES_SERVICE_HOST/PORT, the service account's token and CA), and writes
`client.rack=<label value>`; mm2.properties reads it with `${file:<path>:client.rack}`. A node without the
label, or an API error, exits 1 with one line saying which: the pod does not start with a wrong rack.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"


class RackError(Exception):
    """Why the rack could not be read (one sentence)."""


def node_label(env: Mapping[str, str]) -> str:
    """The value of label TOPOLOGY_KEY of node NODE_NAME, read from the in-cluster API."""
    missing = [k for k in ("NODE_NAME", "TOPOLOGY_KEY", "KUBERNETES_SERVICE_HOST") if not env.get(k)]
    if missing:
        raise RackError(f"{', '.join(missing)} not set (the chart sets them; KUBERNETES_SERVICE_HOST comes from "
                        "Kubernetes)")
    account = Path(env.get("SERVICE_ACCOUNT_DIR", SERVICE_ACCOUNT))
    node, key = env["NODE_NAME"], env["TOPOLOGY_KEY"]
    url = f"https://{env['KUBERNETES_SERVICE_HOST']}:{env.get('KUBERNETES_SERVICE_PORT', '443')}/api/v1/nodes/{node}"
    try:
        token = (account / "token").read_text().strip()
        context = ssl.create_default_context(cafile=str(account / "ca.crt"))
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, context=context, timeout=30) as response:
            labels = json.load(response).get("metadata", {}).get("labels") or {}
    except urllib.error.HTTPError as exc:
        raise RackError(f"reading node {node} from {url}: HTTP {exc.code} (does the service account's "
                        "ClusterRole allow get on nodes?)") from None
    except (OSError, ValueError) as exc:
        raise RackError(f"reading node {node} from {url}: {exc}") from None
    value = labels.get(key)
    if not value:
        raise RackError(f"node {node} has no label {key}")
    return str(value)


def main(argv: list[str] | None = None) -> int:
    """Write `client.rack=<zone>` to the path given; 1 with a message on error."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m replikafka.rack_init <output.properties>", file=sys.stderr)
        return 2
    try:
        rack = node_label(os.environ)
    except RackError as exc:
        print(f"error: rack: {exc}", file=sys.stderr)
        return 1
    Path(args[0]).write_text(f"client.rack={rack}\n")
    print(f"rack: client.rack={rack} ({os.environ['TOPOLOGY_KEY']} of node {os.environ['NODE_NAME']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
