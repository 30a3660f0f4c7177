"""ROPART: robust overlapping partition of the variables (Algorithm 1 of the LSBN paper).

Steps, following Algorithm 1:

1. Start from the complete undirected graph on all variables.
2. Weight it with every weight function of :data:`bnstudy.structure.weights.WEIGHT_FUNCTIONS`
   (one pass of pairwise counts) and prune each weighted graph at its elbow threshold
   (:func:`bnstudy.structure.weights.elbow_threshold`).
3. Partition every pruned graph with weighted LinkComm
   (:func:`bnstudy.structure.linkcomm.link_communities`). Following the paper's definition ("each
   node belongs to at least one community, even an isolated node would itself constitute a
   community of single member"), every node left without edges by the pruning becomes a
   singleton community.
4. Partition support: for partition ``P_i`` the ``p x p`` 0/1 matrix ``S_i[u, v] = 1`` when ``u``
   and ``v`` share a community of ``P_i``. Stacking the rows of the communities that contain ``v``
   over all partitions is the paper's ``PSM(v)``; ``S_i`` collapses the rows of one partition
   (``max`` over them), so that every partition votes once per pair.
5. Second-order network: edge weight = co-occurrence probability
   ``(1 / n) sum_i S_i[u, v]`` over the ``n`` partitions; edges whose weight *exceeds*
   ``second_order_threshold`` (default 0.5: a majority of the weight functions put ``u`` and
   ``v`` together; the paper does not give its value) are kept, and weighted LinkComm on this
   network gives the second-order partition ``P_sec``, again with singletons for isolated nodes.

:func:`partition_statistics` gives the figures the paper reports for a partition: average
shortest path (Table II), diameter (Table III), community sizes (Table IV and the text). Our
reading of Tables II-III: the paper measures them "for each partition" to compare weight functions
and the second-order partition, and it wants communities whose nodes are close in the true
network (selectiveness). So for each community we take the shortest-path distances between its
members in the skeleton of the true network (the whole network, not the subgraph induced by the
community, which may be disconnected), and average over the communities of at least two nodes:
the mean pairwise distance (average shortest path) and the largest one (diameter). Smaller is
better.

References
----------
.. [1] LSBN: A Large-Scale Bayesian Structure Learning Framework for Model Averaging,
   Algorithm 1 (ROPART), Definitions of the partition support matrix and the second-order
   network, and Tables I-IV.
.. [2] Y.-Y. Ahn, J. P. Bagrow and S. Lehmann, "Link communities reveal multiscale complexity in
   networks", *Nature* 466, 761-764 (2010).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from bnstudy.structure.linkcomm import LinkCommunities, link_communities
from bnstudy.structure.weights import (
    WEIGHT_FUNCTIONS,
    _check_methods,
    elbow_threshold,
    prune,
    weight_matrices,
)

__all__ = [
    "RopartResult",
    "partition_statistics",
    "partition_support",
    "ropart",
    "second_order_network",
]

logger = logging.getLogger(__name__)

COMMUNITY_SIZE_LIMIT = 25  # the paper's text reports the share of communities of size <= 25


@dataclass(frozen=True)
class RopartResult:
    """Result of :func:`ropart`.

    Attributes
    ----------
    partitions : dict of str to list of list of int
        Node communities of each weight function's pruned graph (LinkComm communities, then a
        singleton for every node without edges).
    thresholds : dict of str to float
        Elbow truncation threshold ``T_trunc`` of each weight function (Table I).
    remaining_edges_pct : dict of str to float
        Kept edges as a percentage of the ``p (p - 1) / 2`` edges of the complete graph (Table I).
    second_order : list of list of int
        Node communities of the second-order partition ``P_sec`` (with singletons), the final
        partition.
    second_order_weights : numpy.ndarray, shape (p, p)
        Co-occurrence probability of every pair over the partitions (zero diagonal).
    second_order_threshold : float
        Edges of the second-order network have weight above this.
    second_order_remaining_edges_pct : float
        Kept edges of the second-order network, percent of the complete graph.
    link_communities : dict of str to LinkCommunities
        The raw LinkComm results, per weight function and under ``"second_order"``.
    weights : dict of str to numpy.ndarray
        The weight matrices (for later steps such as Markov-blanket candidates).
    """

    partitions: dict[str, list[list[int]]]
    thresholds: dict[str, float]
    remaining_edges_pct: dict[str, float]
    second_order: list[list[int]]
    second_order_weights: np.ndarray = field(repr=False)
    second_order_threshold: float = 0.5
    second_order_remaining_edges_pct: float = 0.0
    link_communities: dict[str, LinkCommunities] = field(default_factory=dict, repr=False)
    weights: dict[str, np.ndarray] = field(default_factory=dict, repr=False)


def _with_singletons(communities: list[list[int]], n_nodes: int) -> list[list[int]]:
    covered = np.zeros(n_nodes, dtype=bool)
    for c in communities:
        covered[c] = True
    return [list(c) for c in communities] + [[int(v)] for v in np.flatnonzero(~covered)]


def partition_support(communities: Sequence[Sequence[int]], n_nodes: int) -> np.ndarray:
    """Partition support matrix of one partition: 1 where two nodes share a community.

    Parameters
    ----------
    communities : sequence of sequence of int
        Node communities of one partition (overlapping allowed).
    n_nodes : int
        Number of nodes.

    Returns
    -------
    numpy.ndarray of int8, shape (n_nodes, n_nodes)
        ``S[u, v] = 1`` if some community holds both ``u`` and ``v``; ``S[v, v] = 1`` for every
        covered node. Row ``v`` is the element-wise maximum of the rows of the paper's
        ``PSM_i(v)``.

    References
    ----------
    .. [1] LSBN paper, Definition of the partition support matrix; Algorithm 1, step 4.

    Examples
    --------
    >>> partition_support([[0, 1], [1, 2]], 3).tolist()
    [[1, 1, 0], [1, 1, 1], [0, 1, 1]]
    """
    rows = np.concatenate([np.full(len(c), k) for k, c in enumerate(communities)] or [[]])
    cols = np.concatenate([np.asarray(c, dtype=np.int64) for c in communities] or [[]])
    if cols.size and (cols.min() < 0 or cols.max() >= n_nodes):
        raise ValueError(f"community node out of range for {n_nodes} nodes")
    b = sp.csr_matrix(
        (np.ones(cols.size), (rows.astype(np.int64), cols.astype(np.int64))),
        shape=(len(communities), n_nodes),
    )
    return ((b.T @ b).toarray() > 0).astype(np.int8)


def second_order_network(partitions: Sequence[Sequence[Sequence[int]]], n_nodes: int) -> np.ndarray:
    """Co-occurrence probabilities of all node pairs over several partitions.

    Parameters
    ----------
    partitions : sequence of partitions
        Each a sequence of node communities.
    n_nodes : int
        Number of nodes.

    Returns
    -------
    numpy.ndarray, shape (n_nodes, n_nodes)
        ``(1 / n) sum_i S_i`` with the partition support matrices ``S_i``
        (:func:`partition_support`); zero diagonal.

    References
    ----------
    .. [1] LSBN paper, Definition of the second-order network; Algorithm 1, step 5.
    """
    if len(partitions) == 0:
        raise ValueError("need at least one partition")
    total = np.zeros((n_nodes, n_nodes), dtype=np.float64)
    for part in partitions:
        total += partition_support(part, n_nodes)
    total /= len(partitions)
    np.fill_diagonal(total, 0.0)
    return total


def ropart(
    data: Any,
    *,
    methods: Sequence[str] = WEIGHT_FUNCTIONS,
    bins: int = 100,
    second_order_threshold: float = 0.5,
) -> RopartResult:
    """Robust overlapping partition of the variables (Algorithm 1 of the LSBN paper).

    Parameters
    ----------
    data : array_like, shape (n_samples, n_variables)
        Integer state indices (constant columns allowed; they end up as singletons).
    methods : sequence of str, default WEIGHT_FUNCTIONS
        Weight functions, one partition each.
    bins : int, default 100
        Histogram bins of the elbow method.
    second_order_threshold : float, default 0.5
        Second-order edges need a co-occurrence probability above this, in ``[0, 1)``.

    Returns
    -------
    RopartResult
        The partitions, thresholds and remaining-edge shares per weight function, and the
        second-order partition.

    Raises
    ------
    ValueError
        On invalid data, an unknown or empty set of methods, or a threshold out of range.

    References
    ----------
    .. [1] LSBN paper, Algorithm 1 (ROPART), steps 1-5.
    .. [2] Ahn, Bagrow & Lehmann, *Nature* 466, 761-764 (2010) (LinkComm).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> x = np.column_stack([a, a ^ (rng.random(500) < 0.1), rng.integers(0, 2, 500)])
    >>> res = ropart(x, methods=["MI", "Pearson"])
    >>> sorted(set(v for c in res.second_order for v in c))
    [0, 1, 2]
    """
    methods = _check_methods(methods)
    if not methods:
        raise ValueError("methods is empty: need at least one weight function")
    if not (np.isfinite(second_order_threshold) and 0.0 <= second_order_threshold < 1.0):
        raise ValueError(
            f"second_order_threshold {second_order_threshold!r} is out of range [0, 1)"
        )
    weights = weight_matrices(data, methods)
    p = next(iter(weights.values())).shape[0]
    if p < 2:
        raise ValueError(f"ROPART needs at least 2 variables, got {p}")
    n_pairs = p * (p - 1) // 2

    thresholds: dict[str, float] = {}
    remaining: dict[str, float] = {}
    partitions: dict[str, list[list[int]]] = {}
    results: dict[str, LinkCommunities] = {}
    for m in methods:
        w = weights[m]
        # Alg. 1, step 2: prune the weighted complete graph at the elbow threshold.
        thresholds[m] = elbow_threshold(w, bins=bins)
        edges = prune(w, thresholds[m])
        remaining[m] = 100.0 * len(edges) / n_pairs
        # Alg. 1, step 3: LinkComm on the pruned, weighted graph.
        res = link_communities(p, edges, w[edges[:, 0], edges[:, 1]])
        results[m] = res
        partitions[m] = _with_singletons(res.communities, p)
        logger.info(
            "ROPART %s: T_trunc = %.4g, %d edges (%.2f%%), %d communities, D = %.3f",
            m,
            thresholds[m],
            len(edges),
            remaining[m],
            len(partitions[m]),
            res.partition_density,
        )

    # Alg. 1, steps 4-5: partition support, second-order network and its partition.
    co = second_order_network(list(partitions.values()), p)
    iu, ju = np.triu_indices(p, k=1)
    keep = co[iu, ju] > second_order_threshold
    edges = np.column_stack((iu[keep], ju[keep])).astype(np.int64)
    res = link_communities(p, edges, co[edges[:, 0], edges[:, 1]])
    results["second_order"] = res
    second = _with_singletons(res.communities, p)
    so_pct = 100.0 * len(edges) / n_pairs
    logger.info(
        "ROPART second order: %d edges (%.2f%%) above %.3g, %d communities, D = %.3f",
        len(edges),
        so_pct,
        second_order_threshold,
        len(second),
        res.partition_density,
    )
    return RopartResult(
        partitions=partitions,
        thresholds=thresholds,
        remaining_edges_pct=remaining,
        second_order=second,
        second_order_weights=co,
        second_order_threshold=float(second_order_threshold),
        second_order_remaining_edges_pct=so_pct,
        link_communities=results,
        weights=weights,
    )


def partition_statistics(
    communities: Sequence[Sequence[int]],
    true_graph_edges: Any,
    n_nodes: int,
    *,
    size_limit: int = COMMUNITY_SIZE_LIMIT,
) -> dict[str, float]:
    """Quality and size figures of a partition against the true network.

    Parameters
    ----------
    communities : sequence of sequence of int
        Node communities (overlapping allowed).
    true_graph_edges : array_like of int, shape (E, 2)
        Edges of the true network; directions are ignored (the skeleton is used).
    n_nodes : int
        Number of nodes.
    size_limit : int, default 25
        Size bound for ``pct_size_le_limit`` (the paper reports the share of communities of size
        ``<= 25``).

    Returns
    -------
    dict
        ``n_communities``; ``mean_size``, ``max_size`` and ``pct_size_le_limit`` (percent of
        communities with at most ``size_limit`` nodes; singletons count); ``n_nontrivial`` and
        ``mean_size_nontrivial``: the number and mean size of communities of at least 3 nodes (the
        ones the R package linkcomm keeps by default, ``removetrivial = TRUE``); ``avg_shortest_path``:
        mean over communities of >= 2 nodes of the mean true-network distance between their
        members (Table II); ``diameter``: mean over those communities of the largest such
        distance (Table III), and ``diameter_max``, the largest over all communities;
        ``node_coverage``: share of nodes in some community; ``edge_coverage``: share of true
        edges whose two endpoints share a community (the paper's "high coverage"); ``overlap``:
        mean number of communities per covered node. Distances between disconnected nodes are
        ``inf`` and make the averages ``inf``.

    References
    ----------
    .. [1] LSBN paper, Tables II (average shortest path), III (diameter) and IV (community
       sizes), and the text on the share of communities of size <= 25.

    Examples
    --------
    >>> s = partition_statistics([[0, 1, 2], [2, 3]], [(0, 1), (1, 2), (2, 3)], 4)
    >>> s["mean_size"], round(s["avg_shortest_path"], 4), s["diameter"], s["edge_coverage"]
    (2.5, 1.1667, 1.5, 1.0)
    >>> s["n_nontrivial"], s["mean_size_nontrivial"]
    (1, 3.0)
    """
    if n_nodes < 1:
        raise ValueError(f"n_nodes must be positive, got {n_nodes!r}")
    comms = [np.unique(np.asarray(c, dtype=np.int64)) for c in communities]
    for c in comms:
        if c.size == 0:
            raise ValueError("empty community")
        if c.min() < 0 or c.max() >= n_nodes:
            raise ValueError(f"community node out of range for {n_nodes} nodes")
    e = np.asarray(true_graph_edges, dtype=np.int64).reshape(-1, 2)
    if e.size and (e.min() < 0 or e.max() >= n_nodes):
        raise ValueError(f"true_graph_edges has a node out of range for {n_nodes} nodes")
    adj = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n_nodes, n_nodes)).tocsr()
    dist = shortest_path(adj, directed=False, unweighted=True)
    sizes = np.array([c.size for c in comms], dtype=np.int64)
    big = sizes >= 3
    asp, diam = [], []
    for c in comms:
        if c.size < 2:
            continue
        d = dist[np.ix_(c, c)][np.triu_indices(c.size, k=1)]
        asp.append(d.mean())
        diam.append(d.max())
    support = partition_support([c.tolist() for c in comms], n_nodes) if comms else None
    covered = np.zeros(n_nodes, dtype=bool)
    membership = np.zeros(n_nodes)
    for c in comms:
        covered[c] = True
        membership[c] += 1
    if len(e) and support is not None:
        edge_cov = float(support[e[:, 0], e[:, 1]].mean())
    else:
        edge_cov = float("nan")
    nan = float("nan")
    return {
        "n_communities": len(comms),
        "mean_size": float(sizes.mean()) if len(comms) else nan,
        "max_size": int(sizes.max()) if len(comms) else 0,
        "pct_size_le_limit": float(100.0 * (sizes <= size_limit).mean()) if len(comms) else nan,
        "n_nontrivial": int(big.sum()),
        "mean_size_nontrivial": float(sizes[big].mean()) if big.any() else nan,
        "avg_shortest_path": float(np.mean(asp)) if asp else nan,
        "diameter": float(np.mean(diam)) if diam else nan,
        "diameter_max": float(np.max(diam)) if diam else nan,
        "node_coverage": float(covered.mean()),
        "edge_coverage": edge_cov,
        "overlap": float(membership[covered].mean()) if covered.any() else nan,
    }
