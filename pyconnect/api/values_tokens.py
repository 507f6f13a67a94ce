"""The tokenizer of Connect's `Values` parser: text split at unescaped `: , { } [ ] "`.

Each delimiter is a token of its own; the text between delimiters is one token, whitespace included
(callers trim). A backslash escapes the next character, which then delimits nothing.
"""

from __future__ import annotations

_DELIMITERS = frozenset(':,{}[]"')


class Parser:
    """Values.Parser: a cursor over the tokens of `original`, with one token of look-ahead."""

    def __init__(self, original: str) -> None:
        self.original = original
        self._index = 0
        self._next: str | None = None  # the look-ahead token, already consumed from the text
        self.previous: str | None = None

    def mark(self) -> int:
        """The position of the next token, for `rewind_to`."""
        return self._index - (len(self._next) if self._next is not None else 0)

    def rewind_to(self, position: int) -> None:
        self._index = position
        self._next = None
        self.previous = None

    def has_next(self) -> bool:
        return self._next is not None or self._index < len(self.original)

    def has_more_content(self) -> bool:
        """Whether anything but whitespace is left."""
        rest = self.original[self._index:]
        return bool((self._next or "").strip() or rest.strip())

    def next(self) -> str:
        """The next token (an empty string at the end)."""
        if self._next is not None:
            token, self._next = self._next, None
        else:
            token = self._consume()
        self.previous = token
        return token

    def next_n(self, n: int) -> str | None:
        """The text of the next `n` tokens, or None (nothing consumed) when fewer are left."""
        start = self.mark()
        for _ in range(n):
            if not self.has_next():
                self.rewind_to(start)
                return None
            self.next()
        return self.original[start:self._index]

    def can_consume(self, expected: str, trim: bool = True) -> bool:
        """Consume the next token if it is `expected` (whitespace-only tokens skipped and the token
        trimmed, unless `trim` is false)."""
        if self._next is None:
            if not self.has_next():
                return False
            self._next = self._consume()
        if trim:
            while not self._next.strip() and self._index < len(self.original):
                self._next = self._consume()
        if (self._next.strip() if trim else self._next) == expected:
            self._next = None
            return True
        return False

    def can_consume_literal(self, literal: str, embedded: bool) -> bool:
        """Values.canParseSingleTokenLiteral: `literal` as a whole value (at the top level, the only token)."""
        start = self.mark()
        if self.can_consume(literal) and (embedded or not self.has_next()):
            return True
        self.rewind_to(start)
        return False

    def _consume(self) -> str:
        text, start, escaped = self.original, self._index, False
        i = start
        while i < len(text):
            c = text[i]
            if c == "\\":
                escaped = not escaped
            elif c in _DELIMITERS and not escaped:
                if i > start:
                    self._index = i
                    return text[start:i]
                self._index = i + 1
                return c
            else:
                escaped = False
            i += 1
        self._index = i
        return text[start:i]
