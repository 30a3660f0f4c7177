"""What the BIF and Hugin ``.net`` readers share: reading the file, tokens, headers, CPT rows.

* :func:`read_network_text` reads a network file (verified against the data registry when it is a
  registered raw file, gzip-decompressed for ``.gz``) and turns a truncated archive or a binary
  file into a ``ValueError`` that names the file.
* :class:`TokenStream` tokenizes a file with one regular expression and walks the tokens.
* :func:`parse_header` reads a ``( child | parent parent ... )`` header (``probability`` in BIF,
  ``potential`` in Hugin).
* :func:`check_rows` validates and repairs CPT rows; :func:`build_network` assembles the result
  and refuses a file that declares no variable.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from bnstudy.data.integrity import read_raw_payload
from bnstudy.networks.bn import NORMALIZATION_ATOL, DiscreteBayesianNetwork

logger = logging.getLogger(__name__)

#: Largest ``|sum(row) - 1|`` that a reader repairs by rescaling the row (with a warning).
RENORMALIZE_ATOL = 1e-3


def read_network_text(path: Path, what: str) -> str:
    """The text of a network file, verified when it is a registered raw file.

    Parameters
    ----------
    path : pathlib.Path
        The file; gzip-decompressed when its name ends with ``.gz``.
    what : str
        The format, for error messages (``"BIF"``, ``"Hugin .net"``).

    Raises
    ------
    bnstudy.data.integrity.ChecksumError
        If a registered raw file does not match the registry's sha256.
    ValueError
        If a ``.gz`` file is truncated or corrupt, or the file is not UTF-8 text; the message names
        the file.
    """
    data = read_raw_payload(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not a {what} text file (byte {exc.start} is not UTF-8 text: {exc.reason})"
        ) from exc


def stem(path: Path) -> str:
    """File name without the format suffixes: ``alarm.bif.gz`` -> ``alarm``."""
    name = path.name
    for suffix in (".gz", ".bif", ".net"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def unquote(s: str) -> str:
    """A quoted token without its quotes, backslash escapes resolved."""
    body = s[1:-1]
    return re.sub(r"\\(.)", r"\1", body) if "\\" in body else body


class TokenStream:
    """Tokens of one file (parallel lists of kind, value, offset) and a cursor.

    Kinds: ``w`` word (names, numbers), ``s`` quoted string (value without the quotes),
    ``p`` punctuation. ``pattern`` has the groups ``skip`` (whitespace, comments), ``s``, ``p``,
    ``w`` and ``bad`` (any other character).
    """

    __slots__ = ("kinds", "pos", "source", "starts", "text", "values")

    def __init__(self, text: str, pattern: re.Pattern[str], source: str) -> None:
        self.source = source
        self.text = text
        self.kinds: list[str] = []
        self.values: list[str] = []
        self.starts: list[int] = []
        kinds, values, starts = self.kinds, self.values, self.starts
        # Each match is optional whitespace followed by one token (or a comment, kind "skip"):
        # one match object per token keeps the tokenizer at about 1 us per token.
        for m in pattern.finditer(text):
            kind = m.lastgroup
            if kind is None or kind == "skip":  # trailing whitespace / comment
                continue
            if kind == "bad":
                raise ValueError(
                    f"{source} line {text.count(chr(10), 0, m.start(kind)) + 1}: "
                    + (
                        "unterminated string"
                        if m.group(kind) == '"'
                        else f"unexpected character {m.group(kind)!r}"
                    )
                )
            kinds.append(kind)
            values.append(m.group(kind) if kind != "s" else unquote(m.group(kind)))
            starts.append(m.start(kind))
        self.pos = 0

    def line_of(self, i: int) -> int:
        """1-based line of token ``i`` (the file's last line for ``i`` past the end)."""
        offset = self.starts[i] if 0 <= i < len(self.starts) else len(self.text.rstrip("\n"))
        return self.text.count("\n", 0, offset) + 1

    def error(self, msg: str, i: int | None = None) -> ValueError:
        """A ``ValueError`` located at token ``i`` (default: the current token)."""
        return ValueError(f"{self.source} line {self.line_of(self.pos if i is None else i)}: {msg}")

    def describe(self, i: int) -> str:
        return repr(self.values[i]) if i < len(self.values) else "end of file"

    def at_end(self) -> bool:
        return self.pos >= len(self.kinds)

    def is_punct(self, punct: str) -> bool:
        i = self.pos
        return i < len(self.kinds) and self.kinds[i] == "p" and self.values[i] == punct

    def is_punct_at(self, i: int, punct: str) -> bool:
        return i < len(self.kinds) and self.kinds[i] == "p" and self.values[i] == punct

    def expect(self, punct: str, *, after_previous: bool = False) -> None:
        """Consume ``punct``; else raise, located at the current token or (``after_previous``) at
        the previous one (a missing ``;`` is reported on the line it belongs to)."""
        if not self.is_punct(punct):
            where = self.pos - 1 if after_previous and self.pos > 0 else self.pos
            raise self.error(f"expected {punct!r}, got {self.describe(self.pos)}", where)
        self.pos += 1

    def accept(self, punct: str) -> bool:
        if self.is_punct(punct):
            self.pos += 1
            return True
        return False

    def name(self, what: str = "a name") -> str:
        """Consume a word or a quoted string."""
        i = self.pos
        if i >= len(self.kinds) or self.kinds[i] == "p":
            raise self.error(f"expected {what}, got {self.describe(i)}")
        self.pos += 1
        return self.values[i]

    def skip_statement(self) -> None:
        """Skip tokens up to and including the next ``;`` (not crossing a brace)."""
        while not self.is_punct(";"):
            if self.at_end() or self.is_punct("}") or self.is_punct("{"):
                raise self.error(f"expected ';', got {self.describe(self.pos)}", self.pos - 1)
            self.pos += 1
        self.pos += 1


def parse_header(ts: TokenStream, block: str, item: str) -> tuple[list[str], list[int], int]:
    """Read ``( child | parent ... )`` from the ``(`` on; the caller checks the shape.

    Parameters
    ----------
    ts : TokenStream
    block : str
        ``"probability"`` or ``"potential"``, for error messages.
    item : str
        What a name is (``"a variable name or ')'"``), for error messages.

    Returns
    -------
    names : list of str
        Every name, in order (commas between names are skipped).
    toks : list of int
        The token index of each name.
    bar : int
        Number of names before ``|``, or -1 without ``|``.

    Raises
    ------
    ValueError
        On two ``|``, an empty header or a token that is not a name.
    """
    ts.expect("(")
    names: list[str] = []
    toks: list[int] = []
    bar = -1
    while not ts.accept(")"):
        if ts.accept("|"):
            if bar >= 0:
                raise ts.error(f"two '|' in a {block} header", ts.pos - 1)
            bar = len(names)
            continue
        if ts.accept(","):
            continue
        toks.append(ts.pos)
        names.append(ts.name(item))
    if not names:
        raise ts.error(f"empty {block} header", ts.pos - 1)
    return names, toks, bar


def check_rows(rows: np.ndarray, node: str, locate: Callable[[int], str]) -> np.ndarray:
    """Validate CPT rows (shape ``(n_configs, card)``) read from a file; repair small round-off.

    Rows off by at most ``NORMALIZATION_ATOL`` are kept; rows off by at most
    :data:`RENORMALIZE_ATOL` are rescaled (one warning per node); negative entries or larger
    deviations raise ``ValueError`` with ``locate(row_index)`` (e.g. ``"file line 12"``) in front.
    """
    sums = rows.sum(axis=1)
    dev = np.abs(sums - 1.0)
    if (
        rows.size and rows.min() >= 0 and dev.max() <= NORMALIZATION_ATOL
    ):  # fast path (also rejects NaN)
        return rows
    bad = np.flatnonzero(np.any(rows < 0, axis=1) | ~np.all(np.isfinite(rows), axis=1))
    if bad.size:
        raise ValueError(
            f"{locate(int(bad[0]))}: probabilities of {node!r} must be finite and >= 0"
        )
    far = np.flatnonzero(dev > RENORMALIZE_ATOL)
    if far.size:
        r = int(far[0])
        raise ValueError(
            f"{locate(r)}: probabilities of {node!r} sum to {sums[r]:.10g}, not 1 "
            f"(tolerance {RENORMALIZE_ATOL:g})"
        )
    fix = dev > NORMALIZATION_ATOL
    if fix.any():
        logger.warning(
            "%s: renormalised %d CPT row(s) of %r that summed to within %g of 1 (worst %.3g)",
            locate(int(np.flatnonzero(fix)[0])),
            int(fix.sum()),
            node,
            RENORMALIZE_ATOL,
            float(dev.max()),
        )
        rows = rows.copy()
        rows[fix] /= sums[fix, None]
    return rows


def build_network(
    ts: TokenStream,
    nodes: list[str],
    parents: Mapping[str, list[str]],
    cpts: Mapping[str, np.ndarray],
    states: Mapping[str, list[str]],
    name: str,
    what: str,
) -> DiscreteBayesianNetwork:
    """The network read from ``ts``; errors without a single line to blame name the file.

    Raises
    ------
    ValueError
        If the file declares no variable (an empty or header-only file: ``what`` names the
        declaration it lacks), or the network is invalid (e.g. a directed cycle).
    """
    if not nodes:
        raise ValueError(
            f"{ts.source}: no {what} declared (an empty or header-only file); a network needs at "
            "least one"
        )
    try:
        return DiscreteBayesianNetwork(nodes, dict(parents), dict(cpts), dict(states), name=name)
    except ValueError as exc:  # e.g. a cycle: no single line to blame
        raise ValueError(f"{ts.source}: {exc}") from exc
