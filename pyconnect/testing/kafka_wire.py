"""The one Kafka request the harness speaks itself: a Metadata request, to tell when a broker is ready.

The harness may not import the Kafka client (pyconnect.testing sits beside pyconnect.kafka in the layers), and
a port that accepts connections is not a ready broker: a KRaft broker accepts on its listeners before it
processes requests. It is ready when a Metadata request answers and names at least one broker.
Metadata v4 is served by every Kafka from 1.0 to 4.x (4.0 removed v0-v3).
"""

from __future__ import annotations

import socket
import struct
from typing import BinaryIO

METADATA_KEY, METADATA_VERSION = 3, 4
CLIENT_ID = b"replikafka-harness"


def _read(stream: BinaryIO, size: int) -> bytes:
    data = stream.read(size)  # a buffered socket reader returns short only at the end of the stream
    if len(data) < size:
        raise ConnectionError("the broker closed the connection")
    return data


def metadata_broker_count(port: int, timeout: float = 2.0) -> int:
    """How many brokers a Metadata request to PLAINTEXT 127.0.0.1:`port` names (OSError if none answers)."""
    header = struct.pack(">hhih", METADATA_KEY, METADATA_VERSION, 1, len(CLIENT_ID)) + CLIENT_ID
    request = header + struct.pack(">i?", 0, False)  # no topics (so: brokers only), create none
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock, sock.makefile("rb") as stream:
        sock.sendall(struct.pack(">i", len(request)) + request)
        (size,) = struct.unpack(">i", _read(stream, 4))
        body = _read(stream, size)
    # response header: correlation id; body: throttle time, then the broker array's length
    correlation, _throttle, brokers = struct.unpack_from(">iii", body)
    if correlation != 1:
        raise ConnectionError(f"unexpected correlation id {correlation} in a Metadata response")
    return int(brokers)


def answers_metadata(port: int, timeout: float = 2.0) -> bool:
    try:
        return metadata_broker_count(port, timeout) > 0
    except (OSError, struct.error):
        return False
