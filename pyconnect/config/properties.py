"""A `java.util.Properties` reader that remembers where each key came from.

Grammar (as Java's `Properties.load`): `=`, `:` or whitespace separates key and value;
lines whose first non-blank character is `#` or `!` are comments; a line ending in an odd
number of backslashes continues on the next line (leading blanks of the next line dropped);
backslash escapes `\\t \\n \\r \\f`, `\\u` + four hex digits, and `\\<any>` for the character itself.
There are no inline comments: `a = b  # c` gives the value `b  # c`.

Unlike Java we reject two shapes that are almost always a typo in a worker or MM2 file and
that Java would silently load: an empty key (`= value`) and a bare word with no separator and
no value. Both are reported with the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class ConfigFileError(Exception):
    """A problem in a configuration file, rendered as `file:line: key: reason`."""

    def __init__(self, path: str, line: int | None, key: str | None, reason: str) -> None:
        self.path, self.line, self.key, self.reason = path, line, key, reason
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {key}: {reason}" if key else f"{where}: {reason}")


@dataclass(frozen=True, slots=True)
class Entry:
    value: str
    line: int


@dataclass(frozen=True)
class Properties:
    """Parsed properties: key -> Entry (last definition wins, as in Java)."""

    path: str
    entries: dict[str, Entry]

    def values(self) -> dict[str, str]:
        return {k: e.value for k, e in self.entries.items()}

    def line_of(self, key: str) -> int | None:
        entry = self.entries.get(key)
        return entry.line if entry else None

    def error(self, key: str, reason: str) -> ConfigFileError:
        return ConfigFileError(self.path, self.line_of(key), key, reason)


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_SEPARATORS = "=:"
_BLANKS = " \t\f"


def _unescape(text: str, path: str, line: int) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 >= len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            code = text[i + 2 : i + 6]
            if len(code) != 4 or any(c not in "0123456789abcdefABCDEF" for c in code):
                raise ConfigFileError(path, line, None, "malformed \\uxxxx encoding")
            out.append(chr(int(code, 16)))
            i += 6
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


def _ends_with_continuation(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _split_key_value(logical: str) -> tuple[str, str, bool]:
    """Return raw key, raw value and whether a separator or value was present."""
    i = 0
    n = len(logical)
    while i < n:
        ch = logical[i]
        if ch == "\\":
            i += 2
            continue
        if ch in _SEPARATORS or ch in _BLANKS:
            break
        i += 1
    key = logical[:i]
    rest = logical[i:]
    stripped = rest.lstrip(_BLANKS)
    had_separator = False
    if stripped[:1] in ("=", ":"):
        stripped = stripped[1:].lstrip(_BLANKS)
        had_separator = True
    return key, stripped, had_separator or bool(stripped)


def parse_properties(text: str, path: str = "<string>") -> Properties:
    """Parse properties text; raise ConfigFileError naming file and line on malformed input."""
    entries: dict[str, Entry] = {}
    lines = text.splitlines()
    idx = 0
    while idx < len(lines):
        start_line = idx + 1
        raw = lines[idx].lstrip(_BLANKS)
        idx += 1
        if not raw or raw[0] in "#!":
            continue
        logical = raw
        while _ends_with_continuation(logical) and idx < len(lines):
            logical = logical[:-1] + lines[idx].lstrip(_BLANKS)
            idx += 1
        if _ends_with_continuation(logical):
            logical = logical[:-1]
        raw_key, raw_value, has_value = _split_key_value(logical)
        if not raw_key:
            raise ConfigFileError(path, start_line, None, f"malformed line (empty key): {raw.strip()!r}")
        key = _unescape(raw_key, path, start_line)
        if not has_value:
            raise ConfigFileError(path, start_line, key, "malformed line: expected 'key=value'")
        entries[key] = Entry(_unescape(raw_value, path, start_line), start_line)
    return Properties(path, entries)


def load_properties(path: str | Path) -> Properties:
    """Read and parse a properties file (ISO-8859-1 as Java, but UTF-8 is accepted first)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigFileError(str(path), None, None, f"cannot read file: {exc.strerror}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return parse_properties(text, str(path))


def split_list(value: str) -> list[str]:
    """Connect's LIST type: comma separated, blanks around items trimmed, empty items dropped."""
    return [item.strip() for item in value.split(",") if item.strip()]
