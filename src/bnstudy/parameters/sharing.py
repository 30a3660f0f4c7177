"""Parameter-sharing sets: which CPTs can be tied, and validation of a sharing partition.

A *sharing set partition* ``Y = {Y_1, ..., Y_k}`` of the nodes ``X`` ties the CPTs of all nodes
of each ``Y_i`` during EM (Reed & Mengshoel 2014, Sec. 4.1). The nodes of one set must have the
same cardinality and the same parent cardinalities (in CPT-axis order), so that they can share
one table; a singleton set is no sharing. :func:`identical_cpt_sets` finds the sets of nodes whose
CPTs are equal in a given network (the "potentially shared" nodes ``P``, Table 2 of the paper),
:func:`largest_sharable_set` the hidden set ``H`` of Sec. 5.2, and :func:`gradual_sharing_sets`
the nested shared sets of the gradual sharing method (Sec. 5.2, steps 1-3).

References
----------
.. [1] E. Reed and O. J. Mengshoel, "Bayesian Network Parameter Learning using EM with Parameter
   Sharing", *Proc. 11th UAI Bayesian Modeling Applications Workshop (BMAW 2014)*, CEUR-WS
   Vol-1218, paper 5, 2014, Sec. 4.1 (sharing set partitions) and Sec. 5.2 (gradual sharing).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from bnstudy.networks.bn import DiscreteBayesianNetwork

__all__ = [
    "gradual_sharing_sets",
    "identical_cpt_sets",
    "largest_sharable_set",
    "validate_sharing",
]

logger = logging.getLogger(__name__)


def identical_cpt_sets(bn: DiscreteBayesianNetwork, *, decimals: int = 12) -> list[list[str]]:
    """Partition the nodes into sets whose CPTs are identical.

    Two nodes are in the same set when their CPTs have the same shape (same cardinality and same
    parent cardinalities, in ``parents`` order) and equal entries after rounding to ``decimals``
    decimals. State and parent names are not compared.

    Parameters
    ----------
    bn : DiscreteBayesianNetwork
    decimals : int, default 12
        Rounding applied before comparing (absorbs print round-off in network files).

    Returns
    -------
    list of list of str
        Every node exactly once; nodes within a set in ``bn.nodes`` (topological) order; sets sorted
        by decreasing size, ties broken by the topological position of their first node.
        Singletons are included.

    Examples
    --------
    >>> import numpy as np
    >>> from bnstudy.networks import DiscreteBayesianNetwork
    >>> p = np.array([0.2, 0.8])
    >>> bn = DiscreteBayesianNetwork(["A", "B", "C"], {},
    ...     {"A": p, "B": np.array([0.5, 0.5]), "C": p}, {v: ["0", "1"] for v in "ABC"})
    >>> identical_cpt_sets(bn)
    [['A', 'C'], ['B']]

    References
    ----------
    .. [1] Reed & Mengshoel (2014), Sec. 5.1 ("a set of nodes Y_i with equal CPTs are deemed
       sharable") and Table 2 (column P).
    """
    groups: dict[tuple, list[str]] = {}
    for v in bn.nodes:
        table = bn.cpts[v]
        # + 0.0 turns -0.0 into 0.0 so that the byte keys of equal tables agree
        key = (table.shape, (np.round(table, decimals) + 0.0).tobytes())
        groups.setdefault(key, []).append(v)
    pos = {v: i for i, v in enumerate(bn.nodes)}
    return sorted(groups.values(), key=lambda s: (-len(s), pos[s[0]]))


def largest_sharable_set(bn: DiscreteBayesianNetwork, *, decimals: int = 12) -> list[str]:
    """The largest set of nodes with identical CPTs, ``H = argmax_{Y_i in Y} |Y_i|``.

    Ties are broken as in :func:`identical_cpt_sets` (the set whose first node comes first in
    topological order).

    References
    ----------
    .. [1] Reed & Mengshoel (2014), Sec. 5.2 (the hidden set of the varying-sharing experiments).
    """
    return list(identical_cpt_sets(bn, decimals=decimals)[0])


def validate_sharing(
    bn: DiscreteBayesianNetwork,
    sharing: Sequence[Sequence[str]] | None,
) -> list[list[str]]:
    """Check a sharing specification and complete it to a set partition of ``bn.nodes``.

    Parameters
    ----------
    bn : DiscreteBayesianNetwork
    sharing : sequence of sequences of str, or None
        The sharing sets. Nodes not mentioned are singletons (unshared); empty sets are ignored;
        ``None`` means no sharing.

    Returns
    -------
    list of list of str
        The partition: the given non-empty sets first (in the given order, nodes in the given
        order), then every unmentioned node as a singleton, in ``bn.nodes`` order.

    Raises
    ------
    ValueError
        If a set is a plain string (a common slip for a one-set list), names an unknown node, a node
        appears twice (in one set or across sets), or the nodes of a set have CPTs of different
        shapes (cardinality or parent cardinalities); the message names the set and the offending
        nodes.

    References
    ----------
    .. [1] Reed & Mengshoel (2014), Sec. 4.1 (sharing set partition; shared nodes have the same
       number of states and the same number of parent instantiations).
    """
    if sharing is None:
        return [[v] for v in bn.nodes]
    if isinstance(sharing, str):
        raise ValueError(f"sharing must be a sequence of node sets, got the string {sharing!r}")
    known = set(bn.nodes)
    seen: dict[str, int] = {}
    sets: list[list[str]] = []
    for i, group in enumerate(sharing):
        if isinstance(group, str):
            raise ValueError(
                f"sharing set {i} is the string {group!r}; give each set as a list of node names"
            )
        members = [str(v) for v in group]
        if not members:
            continue
        unknown = [v for v in members if v not in known]
        if unknown:
            raise ValueError(f"sharing set {i} {members} names unknown nodes {unknown}")
        dup_inside = sorted({v for v in members if members.count(v) > 1})
        if dup_inside:
            raise ValueError(f"sharing set {i} {members} lists nodes {dup_inside} more than once")
        again = [v for v in members if v in seen]
        if again:
            raise ValueError(
                f"sharing set {i} {members} repeats nodes {again} already in sharing set "
                f"{seen[again[0]]}: the sets must be disjoint"
            )
        shapes = {v: bn.cpts[v].shape for v in members}
        ref = shapes[members[0]]
        odd = [v for v in members if shapes[v] != ref]
        if odd:
            detail = ", ".join(f"{v}: {shapes[v]}" for v in [members[0], *odd])
            raise ValueError(
                f"sharing set {i} {members} mixes CPT shapes (parent cardinalities..., "
                f"cardinality): nodes {odd} differ from {members[0]!r} ({detail})"
            )
        for v in members:
            seen[v] = i
        sets.append(members)
    sets.extend([v] for v in bn.nodes if v not in seen)
    return sets


def gradual_sharing_sets(
    hidden: Sequence[str],
    step: int,
    *,
    rng: np.random.Generator,
    first: int | None = None,
) -> list[list[str]]:
    """Nested shared sets of the gradual sharing method.

    Starting from ``S_0 = {}`` (no sharing), each new set adds ``step`` randomly chosen hidden
    nodes that are not yet shared, ``S_0 ⊂ S_1 ⊂ ... ⊂ S_K = H``; the last step may add fewer.
    Each ``S_k`` is used as the one sharing set ``Y'`` of the partition (all other nodes
    singletons), i.e. ``ExpectationMaximization(sharing=[S_k])``.

    Parameters
    ----------
    hidden : sequence of str
        The hidden set ``H`` (in the paper, the largest sharable set, see
        :func:`largest_sharable_set`); no duplicates.
    step : int
        ``Delta n_S >= 1``, the number of nodes added per step.
    rng : numpy.random.Generator
        Draws the order in which hidden nodes become shared (one permutation).
    first : int, optional
        Size of ``S_1`` (default ``step``, or ``len(hidden)`` if smaller); later sets grow by
        ``step``. Reed & Mengshoel's Fig. 2
        uses ``first=2, step=4`` (``n_S = 2, 6, ..., 66``).

    Returns
    -------
    list of list of str
        ``[S_0, S_1, ..., S_K]`` with ``S_0 == []`` and ``S_K`` a permutation of ``hidden``; each set
        is a prefix of the next (nodes in the order they were added). A set of size 1 is not
        sharing and would repeat ``S_0``, so sizes of 1 (``step == 1`` without ``first >= 2``) are
        left out.

    Raises
    ------
    ValueError
        If ``step < 1``, ``first`` is not in ``1 .. len(hidden)``, or ``hidden`` has duplicates.

    Examples
    --------
    >>> import numpy as np
    >>> sets = gradual_sharing_sets(list("abcdefg"), 3, rng=np.random.default_rng(0))
    >>> [len(s) for s in sets]
    [0, 3, 6, 7]

    References
    ----------
    .. [1] Reed & Mengshoel (2014), Sec. 5.2 (gradual sharing method, steps 1-3) and Sec. 5.2.1.
    """
    nodes = [str(v) for v in hidden]
    if len(set(nodes)) != len(nodes):
        dup = sorted({v for v in nodes if nodes.count(v) > 1})
        raise ValueError(f"hidden lists nodes more than once: {dup}")
    if int(step) != step or step < 1:
        raise ValueError(f"step must be an integer >= 1, got {step!r}")
    n = len(nodes)
    if first is None:
        start = min(int(step), n)  # a step past |H| shares all of H at once
    elif int(first) != first or not 1 <= first <= max(n, 1):
        raise ValueError(f"first must be an integer in 1..{n}, got {first!r}")
    else:
        start = int(first)
    # Step 1 of the method, repeated: a random order of H; S_k is the prefix of the k-th size.
    order = [nodes[i] for i in rng.permutation(n)]
    sizes = list(range(int(start), n, int(step))) + ([n] if n else [])
    sets = [[]] + [order[:k] for k in sizes if k >= 2]
    logger.debug("gradual sharing sets of sizes %s", [len(s) for s in sets])
    return sets
