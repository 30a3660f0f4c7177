"""Shared tokenizer helpers for the BIF and Hugin readers (line numbers for error messages)."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ParseError", "TokenStream", "tokenize"]


class ParseError(ValueError):
    """Malformed network file; the message starts with ``"<source> line <N>: "``."""


@dataclass
class TokenStream:
    """Tokens of one file: parallel lists of kinds, texts and character offsets."""

    source: str
    text: str
    kinds: list[str]
    values: list[str]
    starts: list[int]
    pos: int = 0

    def line_of(self, i: int) -> int:
        """1-based line of token ``i`` (the last line of the file for ``i`` past the end)."""
        offset = self.starts[i] if i < len(self.starts) else len(self.text)
        return self.text.count("\n", 0, offset) + 1

    def error(self, msg: str, i: int | None = None) -> ParseError:
        """A :class:`ParseError` for token ``i`` (default: the current token)."""
        i = self.pos if i is None else i
        return ParseError(f"{self.source} line {self.line_of(i)}: {msg}")

    def describe(self, i: int) -> str:
        return repr(self.values[i]) if i < len(self.values) else "end of file"

    def at_end(self) -> bool:
        return self.pos >= len(self.kinds)

    def peek(self) -> str | None:
        return self.values[self.pos] if self.pos < len(self.values) else None

    def next(self, what: str = "a token") -> tuple[str, str]:
        if self.pos >= len(self.kinds):
            raise self.error(f"expected {what}, got end of file")
        i = self.pos
        self.pos += 1
        return self.kinds[i], self.values[i]

    def expect(self, punct: str) -> None:
        if self.pos >= len(self.kinds) or self.kinds[self.pos] != "p" or self.values[self.pos] != punct:
            raise self.error(f"expected {punct!r}, got {self.describe(self.pos)}")
        self.pos += 1

    def accept(self, punct: str) -> bool:
        if self.pos < len(self.kinds) and self.kinds[self.pos] == "p" and self.values[self.pos] == punct:
            self.pos += 1
            return True
        return False

    def word(self, what: str = "a name") -> str:
        if self.pos >= len(self.kinds) or self.kinds[self.pos] != "w":
            raise self.error(f"expected {what}, got {self.describe(self.pos)}")
        self.pos += 1
        return self.values[self.pos - 1]


def tokenize(text: str, pattern: re.Pattern[str], source: str) -> TokenStream:
    """Split ``text`` with ``pattern``, whose named groups are the token kinds.

    Groups named ``skip`` (whitespace, comments) are dropped; a match of the group ``bad`` raises
    a :class:`ParseError` with its line number. Kinds: ``w`` word, ``s`` string, ``p`` punctuation.
    """
    kinds: list[str] = []
    values: list[str] = []
    starts: list[int] = []
    for m in pattern.finditer(text):
        kind = m.lastgroup
        if kind == "skip":
            continue
        if kind == "bad":
            line = text.count("\n", 0, m.start()) + 1
            raise ParseError(f"{source} line {line}: unexpected character {m.group()!r}")
        kinds.append(kind)  # type: ignore[arg-type]
        values.append(m.group(kind))  # type: ignore[arg-type]
        starts.append(m.start())
    return TokenStream(source, text, kinds, values, starts)
