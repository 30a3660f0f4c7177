"""Reader and writer for the Hugin ``.net`` format (discrete chance nodes).

The NASA ADAPT network (``adapt10_v7e.net``, 493 nodes, 300 kB) is distributed in this format.
pgmpy's ``NETReader`` re-scans the whole file once per node and does not finish it in minutes;
this reader tokenizes the file once with a regular expression and converts each ``data`` table
with a single ``numpy`` call, so ADAPT parses in a few tens of milliseconds.

Supported syntax (the subset that describes a discrete Bayesian network)::

    % comment to the end of the line
    net { attribute = value; ... }
    [discrete] node X { states = ("a" "b" "c"); label = "..."; position = (10 20); ... }
    potential ( X | P1 P2 ) { data = (((0.1 0.2 0.7) ...) ...); ... }

Attribute values are strings, words or parenthesised lists; every attribute other than
``states`` (nodes) and ``data`` (potentials) is ignored. ``continuous``, ``decision`` and
``utility`` nodes, ``class`` (object-oriented) networks, potentials over several variables and
potentials given by ``model_nodes``/``model_data`` expressions are rejected with a ``ValueError``.

Data layout: the numbers of ``data`` are the conditional probability table with the parents
nested in the order of the header (first parent outermost) and the child innermost; parentheses
only group for readability and the numbers are read in order. This is exactly the C-order
flattening of :class:`~bnstudy.networks.bn.DiscreteBayesianNetwork`'s CPT layout (and what pgmpy's
``NETWriter`` writes: its CPD values with the child axis moved last).

Normalisation: every row of ADAPT sums to exactly 1.0 in floating point, so nothing is rescaled.
In general, rows off by more than 1e-6 but at most :data:`~bnstudy.networks.bif.RENORMALIZE_ATOL`
(1e-3) are rescaled with a logged warning (the same policy as the BIF reader); larger deviations
are an error.

References
----------
.. [1] HUGIN EXPERT A/S, *HUGIN API Reference Manual*, chapter "The NET Language".
.. [2] O. J. Mengshoel et al., "Diagnosing faults in electrical power systems of spacecraft and
   aircraft", IAAI 2008 (the ADAPT network).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bnstudy.networks._text import (
    TokenStream,
    build_network,
    check_rows,
    parse_header,
    read_network_text,
    stem,
)
from bnstudy.networks.bn import DiscreteBayesianNetwork
from bnstudy.utils import atomic_path

__all__ = ["parse_net", "read_net", "write_net"]

logger = logging.getLogger(__name__)

_NET_TOKEN = re.compile(
    r"""\s*+(?:(?P<skip>%[^\n]*)
      |(?P<s>"(?:[^"\\\n]|\\.)*")
      |(?P<p>[(){}=;|])
      |(?P<w>[^\s(){}=;|"%]+)
      |(?P<bad>.))""",
    re.VERBOSE | re.DOTALL,
)

#: Words that start a top-level declaration (a missing '}' shows up as one of them).
_KEYWORDS = frozenset(
    {
        "net",
        "node",
        "potential",
        "discrete",
        "continuous",
        "decision",
        "utility",
        "function",
        "class",
    }
)

#: Node names that Hugin (and pgmpy's NETReader) accept.
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass
class _Node:
    name: str
    states: list[str]
    tok: int


@dataclass
class _Potential:
    child: str
    parents: list[str]
    toks: list[int]  # token index of the child and of each parent
    data_toks: list[int]  # token indices of the numbers in ``data``


def read_net(path: str | os.PathLike) -> DiscreteBayesianNetwork:
    """Read a Hugin ``.net`` file.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    DiscreteBayesianNetwork
        Named after the file stem (``adapt10_v7e.net`` -> ``"adapt10_v7e"``); parents in the order
        of each potential's header.

    Raises
    ------
    ValueError
        On malformed input, with the file and line number (``"<path> line 12: expected ';', ..."``),
        on unsupported constructs (see the module docstring), unknown variables, a wrong number of
        numbers in ``data``, a node without potential, rows that do not sum to 1, a cycle.

    References
    ----------
    .. [1] HUGIN EXPERT A/S, *HUGIN API Reference Manual*, "The NET Language".
    """
    path = Path(path)
    text = read_network_text(path, "Hugin .net")
    return parse_net(text, source=str(path), name=stem(path))


def parse_net(
    text: str, *, source: str = "<string>", name: str = "network"
) -> DiscreteBayesianNetwork:
    """Parse Hugin ``.net`` text; see :func:`read_net`. ``source`` names the input in errors."""
    ts = TokenStream(text, _NET_TOKEN, source)
    nodes: dict[str, _Node] = {}
    potentials: list[_Potential] = []
    while not ts.at_end():
        start = ts.pos
        if ts.kinds[start] != "w":
            raise ts.error(f"expected 'net', 'node' or 'potential', got {ts.describe(start)}")
        keyword = ts.values[start]
        ts.pos += 1
        if keyword == "net":
            _attributes(ts, "net")
        elif keyword == "node" or (keyword == "discrete" and _accept_word(ts, "node")):
            node = _parse_node(ts)
            if node.name in nodes:
                raise ts.error(f"node {node.name!r} declared twice", node.tok)
            nodes[node.name] = node
        elif keyword == "potential":
            potentials.append(_parse_potential(ts))
        elif keyword in ("continuous", "decision", "utility", "function", "class", "discrete"):
            raise ts.error(
                f"unsupported declaration {keyword!r}: only discrete chance nodes are read", start
            )
        else:
            raise ts.error(f"expected 'net', 'node' or 'potential', got {keyword!r}", start)
    return _build(ts, nodes, potentials, name)


def _accept_word(ts: TokenStream, word: str) -> bool:
    if not ts.at_end() and ts.kinds[ts.pos] == "w" and ts.values[ts.pos] == word:
        ts.pos += 1
        return True
    return False


def _attributes(ts: TokenStream, owner: str) -> dict[str, tuple[int, int]]:
    """Parse ``{ name = value; ... }``; return ``name -> (first, end)`` token range of each value."""
    ts.expect("{")
    found: dict[str, tuple[int, int]] = {}
    kinds, values = ts.kinds, ts.values
    while not ts.accept("}"):
        if ts.at_end():
            raise ts.error(f"expected '}}' closing {owner}, got end of file")
        key_tok = ts.pos
        key = ts.name(f"an attribute name or '}}' in {owner}")
        if key in _KEYWORDS and not ts.is_punct("="):
            raise ts.error(f"expected '}}' closing {owner}, got {key!r}", key_tok)
        ts.expect("=")
        first = ts.pos
        if ts.is_punct("("):
            depth = 0
            n = len(kinds)
            i = ts.pos
            while True:
                if i >= n:
                    raise ts.error(f"expected ')' closing the value of {key!r}, got end of file", i)
                if kinds[i] == "p":
                    v = values[i]
                    if v == "(":
                        depth += 1
                    elif v == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    else:
                        raise ts.error(f"expected ')' closing the value of {key!r}, got {v!r}", i)
                i += 1
            ts.pos = i + 1
        else:
            ts.name(f"a value for {key!r}")
        end = ts.pos
        ts.expect(";", after_previous=True)
        found[key] = (first, end)
    return found


def _parse_node(ts: TokenStream) -> _Node:
    tok = ts.pos
    name = ts.name("a node name")
    attrs = _attributes(ts, f"node {name!r}")
    if "states" not in attrs:
        raise ts.error(f"node {name!r} has no 'states' attribute", tok)
    first, end = attrs["states"]
    if not ts.is_punct_at(first, "("):
        raise ts.error(f"the states of {name!r} must be a parenthesised list of strings", first)
    states: list[str] = []
    for i in range(first + 1, end - 1):
        if ts.kinds[i] != "s":
            raise ts.error(f"expected a quoted state name of {name!r}, got {ts.describe(i)}", i)
        states.append(ts.values[i])
    if not states:
        raise ts.error(f"node {name!r} has no states", first)
    if len(set(states)) != len(states):
        raise ts.error(f"node {name!r} has duplicate state names", first)
    return _Node(name, states, tok)


def _parse_potential(ts: TokenStream) -> _Potential:
    names, toks, bar = parse_header(ts, "potential", "a node name or ')'")
    if bar > 1 or (bar < 0 and len(names) > 1):
        raise ts.error("potentials over several nodes are not supported", toks[0])
    if bar == 0:
        raise ts.error("expected a node before '|'", toks[0])
    header = toks[0]
    attrs = _attributes(ts, f"potential of {names[0]!r}")
    if "data" not in attrs:
        what = (
            "expression-based potentials are not supported"
            if "model_nodes" in attrs
            else "no 'data'"
        )
        raise ts.error(f"potential of {names[0]!r}: {what}", header)
    first, end = attrs["data"]
    kinds = ts.kinds
    data_toks = [i for i in range(first, end) if kinds[i] == "w"]
    if any(kinds[i] == "s" for i in range(first, end)):
        bad = next(i for i in range(first, end) if kinds[i] == "s")
        raise ts.error(
            f"expected a number in the data of {names[0]!r}, got {ts.describe(bad)}", bad
        )
    return _Potential(names[0], names[1:], toks, data_toks)


def _build(
    ts: TokenStream, nodes: dict[str, _Node], potentials: list[_Potential], name: str
) -> DiscreteBayesianNetwork:
    parents: dict[str, list[str]] = {}
    cpts: dict[str, np.ndarray] = {}
    values = ts.values
    for pot in potentials:
        for v, tok in zip([pot.child, *pot.parents], pot.toks, strict=True):
            if v not in nodes:
                raise ts.error(f"unknown node {v!r} in a potential", tok)
        if pot.child in cpts:
            raise ts.error(f"second potential for {pot.child!r}", pot.toks[0])
        if pot.child in pot.parents or len(set(pot.parents)) != len(pot.parents):
            raise ts.error(f"the potential of {pot.child!r} repeats a node", pot.toks[0])
        card = len(nodes[pot.child].states)
        pcards = [len(nodes[p].states) for p in pot.parents]
        expected = card * int(np.prod(pcards, dtype=np.int64))
        if len(pot.data_toks) != expected:
            raise ts.error(
                f"data of {pot.child!r} has {len(pot.data_toks)} numbers, expected {expected} "
                f"({' x '.join(map(str, [*pcards, card]))})",
                pot.data_toks[0] if pot.data_toks else pot.toks[0],
            )
        words = [values[i] for i in pot.data_toks]
        try:
            flat = np.array(words, dtype=np.float64)
        except ValueError:
            for i in pot.data_toks:
                try:
                    float(values[i])
                except ValueError:
                    raise ts.error(
                        f"expected a number in the data of {pot.child!r}, got {values[i]!r}", i
                    ) from None
            raise
        toks = pot.data_toks
        rows = check_rows(
            flat.reshape(-1, card),
            pot.child,
            lambda r, toks=toks, card=card: f"{ts.source} line {ts.line_of(toks[r * card])}",
        )
        parents[pot.child] = pot.parents
        cpts[pot.child] = rows.reshape(*pcards, card)
    for node in nodes.values():
        if node.name not in cpts:
            raise ts.error(f"node {node.name!r} has no potential", node.tok)
    states = {n.name: n.states for n in nodes.values()}
    return build_network(ts, list(nodes), parents, cpts, states, name, "node")


# ---------------------------------------------------------------------------- writer
def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _nested(table: np.ndarray, indent: str) -> str:
    """Hugin data text of ``table`` (child on the last axis): one innermost row per line."""
    if table.ndim == 1:
        return "(" + " ".join(map(repr, table.tolist())) + ")"
    inner = [_nested(sub, indent + " ") for sub in table]
    return "(" + ("\n" + indent + " ").join(inner) + ")"


def format_net(bn: DiscreteBayesianNetwork) -> str:
    """The Hugin ``.net`` text of ``bn`` (see :func:`write_net`)."""
    bad = [v for v in bn.nodes if not _IDENTIFIER.match(v)]
    if bad:
        raise ValueError(
            f"node names not valid in the Hugin format ([A-Za-z_][A-Za-z0-9_]*): {bad[:5]}"
        )
    parts = ["net\n{\n}\n"]
    for v in bn.nodes:
        states = " ".join(_quote(s) for s in bn.state_names[v])
        parts.append(f"\nnode {v}\n{{\n\tstates = ({states});\n}}\n")
    for v in bn.nodes:
        header = f"{v} | {' '.join(bn.parents[v])}".rstrip()
        parts.append(
            f"\npotential ( {header} )\n{{\n\tdata = {_nested(bn.cpts[v], chr(9) + '       ')};\n}}\n"
        )
    return "".join(parts)


def write_net(bn: DiscreteBayesianNetwork, path: str | os.PathLike) -> None:
    """Write ``bn`` as a Hugin ``.net`` file (atomically, via :func:`bnstudy.utils.atomic_path`).

    Nodes and potentials are written in ``bn.nodes`` order; numbers with ``repr`` (shortest text
    that reads back to the same float), so :func:`read_net` returns identical CPTs. The output is
    also readable by Hugin and by pgmpy's ``NETReader``.

    Raises
    ------
    ValueError
        When a node name is not a Hugin identifier (``[A-Za-z_][A-Za-z0-9_]*``).

    References
    ----------
    .. [1] HUGIN EXPERT A/S, *HUGIN API Reference Manual*, "The NET Language".
    """
    text = format_net(bn)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    logger.debug("wrote %s (%d nodes) to %s", bn.name, len(bn.nodes), path)
