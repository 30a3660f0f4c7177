"""mini-ADAPT: the 18-node network of Reed & Mengshoel (2014), rebuilt from ADAPT.

Reed & Mengshoel's mini-ADAPT (18 nodes, 15 arcs, 108 CPT parameters; Table 2, Fig. 1) is made of
three similar six-node fragments of the ADAPT electrical-power-system network, one per
battery/load path. Its file is not published, so it is rebuilt here from ``adapt10_v7e.net``:
for each relay ``EY{s}`` with ``s`` in 136, 236, 336 the fragment holds

====  ===========================  ==========================================================
role  ADAPT node                   meaning
====  ===========================  ==========================================================
CB    ``Command_breaker_ey{s}_op``  command sent to the relay (observed in O_P and O_T)
SB    ``Closed_breaker_ey{s}_op``   relay status, open/closed (always hidden; the shared node)
VB    ``Voltage_breaker_ey{s}_op``  voltage at the relay (always hidden)
HB    ``Health_breaker_ey{s}_op``   relay health (observed in O_T only)
S     ``Sensor_ish{s}``             relay-position sensor reading (observed in O_P and O_T)
HS    ``Health_ish{s}``             sensor health (observed in O_T only)
====  ===========================  ==========================================================

ADAPT's arcs among these nodes are ``HB -> SB <- CB``, ``SB -> VB``, ``SB -> S <- HS`` (five per
fragment). The only parent from outside the fragments is ``Voltage_battery{1,2,3} -> VB``; it is
summed out with its exact marginal in ADAPT (variable elimination over its ancestors,
``Health_battery{k} -> Closed_battery{k} -> Voltage_battery{k}``), so
``P(VB | SB) = sum_v P(VB | SB, Voltage_battery = v) P(Voltage_battery = v)``. The battery
ancestors share no node with the fragments or with each other, so the result is exactly ADAPT's
marginal distribution over the 18 nodes (:func:`build_mini_adapt` checks this condition).

References
----------
.. [1] E. Reed and O. J. Mengshoel, "Bayesian Network Parameter Learning using EM with Parameter
   Sharing", BMAW 2014, CEUR-WS Vol-1218, paper 5: Sec. 3.2 and Fig. 1 (the fragment and the
   observable sets O_P, O_T), Sec. 4.1 (SB shared), Sec. 5.3.1 and Table 4.
.. [2] S. Poll et al., "Advanced diagnostics and prognostics testbed", *Proc. DX-07*, 2007.
.. [3] N. L. Zhang and D. Poole, "A simple approach to Bayesian network computations",
   *Proc. Canadian AI*, 1994 (variable elimination).
"""

from __future__ import annotations

import logging
import string
from collections.abc import Sequence

import numpy as np

from bnstudy.networks.bn import DiscreteBayesianNetwork

__all__ = [
    "MINI_ADAPT_ROLES",
    "MINI_ADAPT_SUFFIXES",
    "OBSERVABLE_ROLES",
    "ancestral_marginal",
    "build_mini_adapt",
    "hidden_nodes",
    "observables",
    "role_nodes",
    "shared_node_set",
]

logger = logging.getLogger(__name__)

#: Relay suffixes of the three fragments (ADAPT's EY136, EY236, EY336 paths).
MINI_ADAPT_SUFFIXES: tuple[str, ...] = ("136", "236", "336")

#: Paper role -> ADAPT node name template (``{s}`` is a suffix of :data:`MINI_ADAPT_SUFFIXES`).
MINI_ADAPT_ROLES: dict[str, str] = {
    "CB": "Command_breaker_ey{s}_op",
    "SB": "Closed_breaker_ey{s}_op",
    "VB": "Voltage_breaker_ey{s}_op",
    "HB": "Health_breaker_ey{s}_op",
    "S": "Sensor_ish{s}",
    "HS": "Health_ish{s}",
}

#: Observed roles of the paper's observable sets (Sec. 3.2, Sec. 5.3.1): complete data, production,
#: testing.
OBSERVABLE_ROLES: dict[str, tuple[str, ...]] = {
    "O_C": ("CB", "SB", "VB", "HB", "S", "HS"),
    "O_P": ("CB", "S"),
    "O_T": ("CB", "S", "HB", "HS"),
}


def role_nodes(role: str) -> list[str]:
    """The three ADAPT node names of a paper role (``"CB"``, ``"SB"``, ...), fragments in order."""
    if role not in MINI_ADAPT_ROLES:
        raise ValueError(
            f"unknown mini-ADAPT role {role!r}; expected one of {list(MINI_ADAPT_ROLES)}"
        )
    return [MINI_ADAPT_ROLES[role].format(s=s) for s in MINI_ADAPT_SUFFIXES]


def _nodes_of_roles(roles: Sequence[str]) -> list[str]:
    return [MINI_ADAPT_ROLES[r].format(s=s) for s in MINI_ADAPT_SUFFIXES for r in roles]


def observables(kind: str) -> list[str]:
    """Observed nodes of ``"O_C"`` (all 18), ``"O_P"`` (CB, S) or ``"O_T"`` (CB, S, HB, HS).

    Nodes are listed fragment by fragment (suffix 136, 236, 336), roles in the order of
    :data:`OBSERVABLE_ROLES`.

    References
    ----------
    .. [1] Reed & Mengshoel (2014), Sec. 3.2 and Sec. 5.3.1.
    """
    if kind not in OBSERVABLE_ROLES:
        raise ValueError(
            f"unknown observable set {kind!r}; expected one of {list(OBSERVABLE_ROLES)}"
        )
    return _nodes_of_roles(OBSERVABLE_ROLES[kind])


def hidden_nodes(kind: str) -> list[str]:
    """The complement of :func:`observables` in mini-ADAPT: ``H_P`` (12 nodes), ``H_T`` (6), ``[]``."""
    seen = set(observables(kind))
    return [v for v in _nodes_of_roles(tuple(MINI_ADAPT_ROLES)) if v not in seen]


def shared_node_set() -> list[str]:
    """The sharing set of the paper's sharing condition: the three SB nodes (Sec. 4.1)."""
    return role_nodes("SB")


def _ancestors(bn: DiscreteBayesianNetwork, nodes: Sequence[str]) -> set[str]:
    """``nodes`` and all their ancestors."""
    out: set[str] = set()
    stack = list(nodes)
    while stack:
        v = stack.pop()
        if v not in out:
            out.add(v)
            stack.extend(bn.parents[v])
    return out


def _contract(
    factors: Sequence[tuple[Sequence[str], np.ndarray]], keep: Sequence[str]
) -> np.ndarray:
    """Sum-product of ``factors`` (scope, table) onto ``keep`` (axes in that order)."""
    names = sorted({v for scope, _ in factors for v in scope} | set(keep))
    letters = string.ascii_letters
    if len(names) > len(letters):  # pragma: no cover - far beyond the ancestral sets used here
        raise ValueError(f"cannot contract {len(names)} variables in one step")
    sym = {v: letters[i] for i, v in enumerate(names)}
    spec = ",".join("".join(sym[v] for v in scope) for scope, _ in factors)
    spec += "->" + "".join(sym[v] for v in keep)
    return np.einsum(spec, *[t for _, t in factors], optimize=True)


def _elimination_cost(
    v: str, factors: Sequence[tuple[Sequence[str], np.ndarray]], card: dict[str, int]
) -> int:
    """Entries of the table created by eliminating ``v`` (greedy min-size heuristic)."""
    scope = {u for s, _ in factors if v in s for u in s}
    return int(np.prod([card[u] for u in scope]))


def ancestral_marginal(bn: DiscreteBayesianNetwork, query: Sequence[str]) -> np.ndarray:
    """Exact joint marginal ``P(query)`` by variable elimination over the ancestors of ``query``.

    Only the CPTs of ``query`` and its ancestors are needed (the other nodes are barren and sum
    to one). Non-query variables are eliminated greedily, smallest intermediate table first.

    Parameters
    ----------
    bn : DiscreteBayesianNetwork
    query : sequence of str
        Distinct nodes; the result has one axis per query node, in this order.

    Returns
    -------
    numpy.ndarray
        The joint distribution, shape ``tuple(card(q) for q in query)``, summing to 1.

    References
    ----------
    .. [1] Zhang & Poole (1994); Koller & Friedman (2009), Alg. 9.1 (sum-product VE).
    """
    query = [str(q) for q in query]
    for q in query:
        bn.index(q)
    if len(set(query)) != len(query):
        raise ValueError(f"query lists a node more than once: {query}")
    card = bn.cardinality
    anc = _ancestors(bn, query)
    factors: list[tuple[list[str], np.ndarray]] = [
        ([*bn.parents[v], v], bn.cpts[v]) for v in bn.nodes if v in anc
    ]
    todo = [v for v in bn.nodes if v in anc and v not in query]
    while todo:
        v = min(todo, key=lambda u, fs=factors: _elimination_cost(u, fs, card))
        todo.remove(v)
        involved = [f for f in factors if v in f[0]]
        rest = [f for f in factors if v not in f[0]]
        scope = list(dict.fromkeys(u for s, _ in involved for u in s if u != v))
        factors = [*rest, (scope, _contract(involved, scope))]
    joint = _contract(factors, query)
    return joint / joint.sum()


def build_mini_adapt(
    adapt: DiscreteBayesianNetwork, *, name: str = "mini_adapt"
) -> DiscreteBayesianNetwork:
    """Extract mini-ADAPT (three six-node relay fragments) from the ADAPT network.

    Every node of the fragments keeps its ADAPT name, states and in-fragment parents (in ADAPT's
    parent order). A parent outside the fragments is summed out with the exact joint marginal of
    that node's outside parents in ADAPT (:func:`ancestral_marginal`). In ``adapt10_v7e`` the only
    such parent is ``Voltage_battery{k}`` of ``VB``; the result has 18 nodes, 15 arcs and
    ``3 * (2 + 3 + 3 + 12 + 4 + 12) = 108`` CPT entries (CB 2, HB 3, HS 3, SB 3x2x2, VB 2x2,
    S 3x2x2).

    Parameters
    ----------
    adapt : DiscreteBayesianNetwork
        ADAPT, e.g. ``load_network(".../adapt10_v7e.net")``.
    name : str, default "mini_adapt"

    Returns
    -------
    DiscreteBayesianNetwork

    Raises
    ------
    ValueError
        If a fragment node is missing from ``adapt``.

    Notes
    -----
    Summing out the outside parents ``O_v`` of each fragment node ``v`` with their marginal is
    exact (the result is ADAPT's marginal distribution over the 18 nodes) when every block
    ``B_v = O_v`` plus its ancestors is disjoint from the fragments and the blocks of different
    nodes are disjoint: the outside ancestors of the fragments are then the disjoint union of the
    ``B_v``, and the sum over them factorises into one sum per block. This is checked; when it
    fails, a warning is logged and the result is only an approximation.

    References
    ----------
    .. [1] Reed & Mengshoel (2014), Sec. 4.1, Fig. 1, Table 2.
    """
    kept = _nodes_of_roles(("CB", "HB", "HS", "SB", "VB", "S"))
    missing = [v for v in kept if v not in set(adapt.nodes)]
    if missing:
        raise ValueError(f"network {adapt.name!r} lacks the mini-ADAPT nodes {missing}")
    kept_set = set(kept)
    parents: dict[str, list[str]] = {}
    cpts: dict[str, np.ndarray] = {}
    outside_blocks: list[set[str]] = []
    for v in kept:
        ps = adapt.parents[v]
        inner = [p for p in ps if p in kept_set]
        outer = [p for p in ps if p not in kept_set]
        parents[v] = inner
        if not outer:
            cpts[v] = adapt.cpts[v]
            continue
        block = _ancestors(adapt, outer)
        outside_blocks.append(block)
        marginal = ancestral_marginal(adapt, outer)
        letters = string.ascii_letters
        sym = {u: letters[i] for i, u in enumerate([*ps, v])}
        spec = (
            "".join(sym[u] for u in [*ps, v])
            + ","
            + "".join(sym[u] for u in outer)
            + "->"
            + "".join(sym[u] for u in [*inner, v])
        )
        cpts[v] = np.einsum(spec, adapt.cpts[v], marginal)
        logger.debug(
            "mini-ADAPT: summed %s out of %s with its marginal %s",
            outer,
            v,
            np.round(marginal, 6).tolist(),
        )
    exact = all(not (b & kept_set) for b in outside_blocks)
    exact = exact and all(
        not (a & b) for i, a in enumerate(outside_blocks) for b in outside_blocks[i + 1 :]
    )
    if not exact:
        logger.warning(
            "mini-ADAPT: outside parents share ancestors with the fragments or with each other; "
            "summing them out with their marginals approximates ADAPT's marginal distribution"
        )
    mini = DiscreteBayesianNetwork(
        kept, parents, cpts, {v: adapt.state_names[v] for v in kept}, name=name
    )
    summary = mini.summary()
    logger.info(
        "mini-ADAPT from %r: %d nodes, %d arcs, %d CPT parameters (%s)",
        adapt.name,
        summary["nodes"],
        summary["arcs"],
        summary["cpt_parameters"],
        "exact marginal" if exact else "approximate",
    )
    return mini
