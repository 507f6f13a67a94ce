"""A `java.util.Properties` reader that remembers where each key came from.

The file is read as `Properties.load(InputStream)` reads it:
- bytes are ISO-8859-1; other characters are written as `\\u` + four hex digits. A line holding
  bytes that look like UTF-8 is read as ISO-8859-1 all the same, with a warning naming file and line;
- lines end at `\\n`, `\\r` or `\\r\\n` only (a form feed, vertical tab or U+0085 is not a line end);
- `=`, `:` or whitespace (space, tab, form feed) separates key and value; lines whose first
  non-blank character is `#` or `!` are comments; a line ending in an odd number of backslashes
  continues on the next line (leading blanks of the next line dropped);
- backslash escapes `\\t \\n \\r \\f`, `\\u` + four hex digits, and `\\<any>` for the character itself;
- values keep their trailing whitespace, and there are no inline comments: `a = b  # c` gives the
  value `b  # c`. What a value then means is up to the code reading it (see
  connectors.mirror.maker_config, which warns where Java's reading differs from the obvious one).

Unlike Java we reject two shapes that are almost always a typo in a worker or MM2 file and
that Java would silently load: an empty key (`= value`) and a bare word with no separator and
no value. Both are reported with the file and line.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


class ConfigFileError(Exception):
    """A problem in a configuration file, rendered as `file:line: key: reason`."""

    def __init__(self, path: str, line: int | None, key: str | None, reason: str) -> None:
        self.path, self.line, self.key, self.reason = path, line, key, reason
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {key}: {reason}" if key else f"{where}: {reason}")


@dataclass(frozen=True, slots=True)
class Entry:
    """One key's value and the (first physical) line it was defined on."""

    value: str
    line: int


@dataclass(frozen=True)
class Properties:
    """Parsed properties: key -> Entry (last definition wins, as in Java)."""

    path: str
    entries: dict[str, Entry]

    def values(self) -> dict[str, str]:
        """Key -> value, as Java's Properties holds them."""
        return {k: e.value for k, e in self.entries.items()}

    def line_of(self, key: str) -> int | None:
        """The line `key` was (last) defined on, or None when it is not in the file."""
        entry = self.entries.get(key)
        return entry.line if entry else None

    def error(self, key: str, reason: str) -> ConfigFileError:
        """A ConfigFileError naming this file, the key's line and the key."""
        return ConfigFileError(self.path, self.line_of(key), key, reason)

    def where(self, key: str) -> str:
        """`file:line` of `key` (just the file when the key is not in it), for warnings."""
        line = self.line_of(key)
        return f"{self.path}:{line}" if line else self.path


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_SEPARATORS = "=:"
_BLANKS = " \t\f"  # Java's LineReader and load0 treat only these as whitespace
_LINE_END = re.compile(r"\r\n|\r|\n")
_LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")
# Java's ConfigDef LIST: the value is trimmed, then split on commas with surrounding \s (ASCII only).
_LIST_SEPARATOR = re.compile(r"[ \t\n\x0b\f\r]*,[ \t\n\x0b\f\r]*")


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
    lines = _LINE_END.split(text)
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


def _warn_utf8_lines(data: bytes, path: str) -> None:
    """Java reads every byte as ISO-8859-1: say so where a line looks like UTF-8 text."""
    for number, line in enumerate(_LINE_END_BYTES.split(data), start=1):
        if line.isascii():
            continue
        try:
            meant = line.decode("utf-8")
        except UnicodeDecodeError:
            continue  # not UTF-8 either: ISO-8859-1 is the only reading
        sample = next(c for c in meant if ord(c) > 127)
        log.warning("%s:%d: non-ASCII bytes are read as ISO-8859-1, as Java's Properties.load reads them: %r "
                    "becomes %r; write \\u%04x for %r", path, number, sample,
                    sample.encode("utf-8").decode("latin-1"), ord(sample), sample)


def load_properties(path: str | Path) -> Properties:
    """Read and parse a properties file as Java's `Properties.load(InputStream)` does (ISO-8859-1)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigFileError(str(path), None, None, f"cannot read file: {exc.strerror}") from exc
    _warn_utf8_lines(data, str(path))
    return parse_properties(data.decode("latin-1"), str(path))


def java_trim(value: str) -> str:
    """`String.trim()`: drop leading and trailing characters up to U+0020 (Python's strip() drops more)."""
    start, end = 0, len(value)
    while start < end and value[start] <= " ":
        start += 1
    while end > start and value[end - 1] <= " ":
        end -= 1
    return value[start:end]


def split_list(value: str) -> list[str]:
    """Connect's LIST type as Java parses it: trimmed, split on commas with surrounding blanks
    removed; a blank value is the empty list, and empty items are kept (`a,,b` has three items)."""
    text = java_trim(value)
    return _LIST_SEPARATOR.split(text) if text else []
