"""Java's text conventions that transform configs are written in: `Matcher.replaceFirst` replacement
strings (`$1`, `${name}`) and `SimpleDateFormat` patterns (`yyyyMMdd`), so that a Connect config keeps
its meaning here."""

from __future__ import annotations

import datetime as dt
import re

_GROUP_REF = re.compile(r"\$(\d+|\{[A-Za-z][A-Za-z0-9]*\})")


def java_replacement(replacement: str) -> str:
    """A Python `re` template with the meaning of a Java replacement string: `$n` and `${name}` are
    group references, a backslash quotes the next character, everything else is literal."""
    out: list[str] = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\" and i + 1 < len(replacement):
            out.append(replacement[i + 1].replace("\\", "\\\\"))
            i += 2
            continue
        if c == "$":
            match = _GROUP_REF.match(replacement, i)
            if match is None:
                raise ValueError(f"Illegal group reference in replacement: {replacement}")
            out.append(f"\\g<{match.group(1).strip('{}')}>")
            i = match.end()
            continue
        out.append("\\\\" if c == "\\" else c)
        i += 1
    return "".join(out)


_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def _field(letter: str, width: int, when: dt.datetime) -> str:
    numeric = {"y": when.year, "M": when.month, "d": when.day, "H": when.hour, "m": when.minute,
               "s": when.second, "D": when.timetuple().tm_yday, "h": (when.hour % 12) or 12,
               "k": when.hour or 24, "K": when.hour % 12}
    if letter == "y":
        return f"{when.year % 100:02d}" if width == 2 else str(when.year).zfill(width)
    if letter == "M" and width >= 3:
        name = _MONTHS[when.month - 1]
        return name if width >= 4 else name[:3]
    if letter in numeric:
        return str(numeric[letter]).zfill(width)
    if letter == "S":
        return str(when.microsecond // 1000).zfill(width)
    if letter == "E":
        name = _DAYS[when.weekday()]
        return name if width >= 4 else name[:3]
    if letter == "a":
        return "AM" if when.hour < 12 else "PM"
    if letter in "ZXz":
        return {"X": "Z", "Z": "+0000", "z": "UTC"}[letter]
    raise ValueError(f"Illegal pattern character '{letter}'")


def _tokens(pattern: str) -> list[tuple[str, int] | str]:
    """The pattern as (letter, width) fields and literal strings; ValueError on a bad pattern."""
    tokens: list[tuple[str, int] | str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            end = pattern.find("'", i + 1)
            if end < 0:
                raise ValueError("Unterminated quote")
            tokens.append(pattern[i + 1:end] if end > i + 1 else "'")
            i = end + 1
        elif c.isascii() and c.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == c:
                j += 1
            _field(c, j - i, dt.datetime(2000, 1, 1))  # reject unknown letters when the pattern is read
            tokens.append((c, j - i))
            i = j
        else:
            tokens.append(c)
            i += 1
    return tokens


_TEXT = {"E": "[A-Za-z]+", "a": "AM|PM", "z": "[A-Za-z]+", "Z": "[+-]\\d{4}", "X": "Z|[+-]\\d{2}(?::?\\d{2})?"}
_ZONES = {"UTC": 0, "GMT": 0, "Z": 0}


def _field_regex(letter: str, width: int, next_numeric: bool) -> str:
    """The regex a field parses with: a numeric field followed directly by another takes exactly its
    width (Java's adjacent-field rule, `yyyyMMdd`); otherwise any number of digits."""
    if letter == "M" and width >= 3:
        return "[A-Za-z]+"
    if letter in _TEXT:
        return _TEXT[letter]
    return f"\\d{{{width}}}" if next_numeric else "[+-]?\\d+"


def _offset_minutes(text: str) -> int:
    if text in _ZONES:
        return _ZONES[text]
    if text[0] not in "+-":
        raise ValueError(f"Unknown time zone {text}")
    digits = text[1:].replace(":", "")
    minutes = int(digits[:2]) * 60 + (int(digits[2:4]) if len(digits) > 2 else 0)
    return -minutes if text[0] == "-" else minutes


class SimpleDateFormat:
    """Formats and parses UTC instants with a Java SimpleDateFormat pattern (the letters Connect configs
    use: y M d H h k K m s S D E a z Z X, quoted literals; zones print as UTC)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokens(pattern)

    def format(self, when: dt.datetime) -> str:
        utc = when.astimezone(dt.UTC) if when.tzinfo else when
        return "".join(t if isinstance(t, str) else _field(t[0], t[1], utc) for t in self._tokens)

    def parse(self, text: str) -> dt.datetime:
        """The instant `text` stands for (UTC unless it names a zone); ValueError when it does not match."""
        parts: list[str] = []
        fields: list[tuple[str, int]] = []
        for i, token in enumerate(self._tokens):
            if isinstance(token, str):
                parts.append(re.escape(token))
                continue
            following = self._tokens[i + 1] if i + 1 < len(self._tokens) else None
            numeric_next = isinstance(following, tuple) and following[0] not in _TEXT
            parts.append(f"({_field_regex(token[0], token[1], numeric_next)})")
            fields.append(token)
        match = re.fullmatch("".join(parts), text.strip())
        if match is None:
            raise ValueError(f"Unparseable date: \"{text}\"")
        return _instant(dict(zip((f[0] for f in fields), match.groups(), strict=True)))


def _instant(found: dict[str, str]) -> dt.datetime:
    """The UTC instant of parsed field texts (SimpleDateFormat's lenient defaults: 1970-01-01 00:00)."""
    month_text = found.get("M", "1")
    month = int(month_text) if month_text.isdigit() else 1 + [m[:3].lower() for m in _MONTHS].index(
        month_text[:3].lower())
    hour = int(found.get("H", found.get("k", "0"))) % 24
    if "h" in found or "K" in found:
        hour = int(found.get("h", found.get("K", "0"))) % 12 + (12 if found.get("a") == "PM" else 0)
    when = dt.datetime(int(found.get("y", "1970")), month, 1, hour, int(found.get("m", "0")), int(found.get("s", "0")),
                       tzinfo=dt.UTC)
    when += dt.timedelta(days=int(found.get("d", "1")) - 1, milliseconds=int(found.get("S", "0")))
    zone = found.get("z") or found.get("Z") or found.get("X")
    return when - dt.timedelta(minutes=_offset_minutes(zone)) if zone else when
