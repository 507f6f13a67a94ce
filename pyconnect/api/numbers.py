"""Java's 32-bit floats for Python floats: Connect's FLOAT32 values are Java floats, which Python has not."""

from __future__ import annotations

import math
import struct

from pyconnect.api.config import java_double_string

_F32 = struct.Struct("<f")


def to_float32(value: float) -> float:
    """Java's `(float) value`: the nearest float32, as a Python float (overflow to an infinity)."""
    try:
        return float(_F32.unpack(_F32.pack(value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def java_float_string(value: float) -> str:
    """Java's `Float.toString` of `(float) value`: the shortest digits that read back as the same float32,
    laid out as `Double.toString` lays them out (plain between 1e-3 and 1e7, else `d.dddE<n>`)."""
    f = to_float32(value)
    if not math.isfinite(f) or f == 0:
        return java_double_string(f)
    for precision in range(1, 10):
        text = f"{f:.{precision - 1}e}"
        if to_float32(float(text)) == f:
            two = f"{f:.1e}"
            if precision == 1 and abs(float(two) - f) < abs(float(text) - f):
                text = two  # Java shows two digits when they are closer to the float than one
            # A decimal of at most 9 digits reads back as a double whose shortest repr is those digits,
            # so Double.toString's layout of that double is Float.toString's layout of the float.
            return java_double_string(float(text))
    return java_double_string(f)  # unreachable: 9 significant digits always round-trip a float32
