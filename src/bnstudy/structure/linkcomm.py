"""Link communities (Ahn, Bagrow & Lehmann 2010): overlapping node communities from edge clusters.

LinkComm clusters the *edges* of a graph, not its nodes. Two edges ``e_ik`` and ``e_jk`` that share
a node ``k`` have the similarity of their other endpoints' inclusive neighbourhoods
``n+(i) = n(i) | {i}``:

* unweighted, the Jaccard index ``S = |n+(i) & n+(j)| / |n+(i) | n+(j)|``;
* weighted, the Tanimoto coefficient ``S = a_i . a_j / (|a_i|^2 + |a_j|^2 - a_i . a_j)`` of the
  vectors ``a_i = (A_i1, ..., A_iN)`` with ``A_ij = w_ij`` for a neighbour ``j`` and
  ``A_ii = (1 / k_i) sum_j w_ij`` (the mean weight of ``i``'s edges), as in the paper's
  supplementary information. With all weights 1 this is the Jaccard index.

Edges that share no node are never merged directly. Single-linkage hierarchical clustering of the
edges is cut at the level of maximum partition density

    D = (2 / M) sum_c m_c (m_c - (n_c - 1)) / ((n_c - 2) (n_c - 1)),

where community ``c`` has ``m_c`` edges and ``n_c`` nodes (a term is 0 when ``n_c = 2``). A node
belongs to every community that holds one of its edges, so node communities overlap.

Implementation: single linkage of a similarity graph is determined by its maximum spanning forest
(the partition at level ``s`` is the connected components of the pairs with similarity ``>= s``,
and the forest has the same components at every ``s``). The forest of the edge-adjacency graph
(one vertex per edge, one arc per pair of edges sharing a node, ``sum_k C(k_k, 2)`` arcs) is built
by :func:`scipy.sparse.csgraph.minimum_spanning_tree` on the dense ranks of the similarities, and
its at most ``M - 1`` arcs are replayed in decreasing similarity with a union-find that updates the
partition density incrementally; ties are merged together, and the density is read only between
distinct similarity levels. No ``M x M`` matrix is ever formed.

References
----------
.. [1] Y.-Y. Ahn, J. P. Bagrow and S. Lehmann, "Link communities reveal multiscale complexity in
   networks", *Nature* 466, 761-764 (2010), and its Supplementary Information (weighted
   similarity, Eq. 2 there).
.. [2] LSBN: A Large-Scale Bayesian Structure Learning Framework for Model Averaging,
   Algorithm 1 (ROPART), step 3: "we use LinkComm for partition algorithm".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

__all__ = ["LinkCommunities", "edge_similarities", "link_communities", "partition_density"]

logger = logging.getLogger(__name__)

# Up to this many nodes the inclusive adjacency is held dense (32 MiB at 2048 nodes).
_DENSE_MAX_NODES = 2048


@dataclass(frozen=True)
class LinkCommunities:
    """Result of :func:`link_communities`.

    Attributes
    ----------
    n_nodes : int
        Number of nodes of the graph.
    edges : numpy.ndarray of int64, shape (M, 2)
        The edges, each as ``(min, max)``, in input order.
    edge_labels : numpy.ndarray of int64, shape (M,)
        Community of every edge, ``0 .. C - 1`` (numbered by first occurrence in ``edges``).
    communities : list of list of int
        Node communities: ``communities[c]`` is the sorted node set of the edges labelled ``c``.
        They overlap; nodes without edges are in none.
    partition_density : float
        ``D`` of the chosen cut (0 when no level beats the all-singletons partition).
    threshold : float
        Similarity level of the cut: the chosen partition merges every edge pair of similarity
        ``>= threshold``. ``inf`` when no merge is made (the all-singletons partition).
    levels : numpy.ndarray, shape (L,)
        Distinct similarity levels of the dendrogram, decreasing.
    densities : numpy.ndarray, shape (L,)
        Partition density after merging at each level.
    """

    n_nodes: int
    edges: np.ndarray
    edge_labels: np.ndarray
    communities: list[list[int]]
    partition_density: float
    threshold: float
    levels: np.ndarray = field(repr=False)
    densities: np.ndarray = field(repr=False)

    @property
    def n_communities(self) -> int:
        """Number of communities."""
        return len(self.communities)

    def node_membership(self) -> list[list[int]]:
        """Community ids of every node (empty for nodes without edges)."""
        out: list[list[int]] = [[] for _ in range(self.n_nodes)]
        for c, nodes in enumerate(self.communities):
            for v in nodes:
                out[v].append(c)
        return out


def _check_graph(n_nodes: Any, edges: Any, weights: Any) -> tuple[int, np.ndarray, np.ndarray]:
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, (int, np.integer)) or n_nodes < 0:
        raise ValueError(f"n_nodes must be a non-negative integer, got {n_nodes!r}")
    n_nodes = int(n_nodes)
    e = np.asarray(edges)
    if e.size == 0:
        e = e.reshape(0, 2).astype(np.int64)
    if e.ndim != 2 or e.shape[1] != 2 or e.dtype.kind not in "iu":
        raise ValueError(f"edges must be an (M, 2) integer array, got {e.dtype} {e.shape}")
    e = np.sort(e.astype(np.int64), axis=1)
    if e.size and (e.min() < 0 or e.max() >= n_nodes):
        bad = e[(e < 0).any(axis=1) | (e >= n_nodes).any(axis=1)][0]
        raise ValueError(f"edge {tuple(bad.tolist())} is out of range for {n_nodes} nodes")
    loops = e[:, 0] == e[:, 1]
    if loops.any():
        raise ValueError(f"self-loop {tuple(e[loops][0].tolist())} is not allowed")
    keys = e[:, 0] * max(n_nodes, 1) + e[:, 1]
    uniq, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        k = uniq[counts > 1][0]
        raise ValueError(f"duplicate edge {(int(k // n_nodes), int(k % n_nodes))}")
    if weights is None:
        w = np.ones(len(e))
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (len(e),):
            raise ValueError(f"weights must have shape ({len(e)},), got {w.shape}")
        if not np.isfinite(w).all():
            raise ValueError("weights must be finite")
        if (w < 0).any():
            logger.debug(
                "link_communities: %d negative weights; the Tanimoto similarity is still "
                "well defined (its denominator is positive)",
                int((w < 0).sum()),
            )
    return n_nodes, e, w


def _edge_pairs(n_nodes: int, edges: np.ndarray) -> tuple[np.ndarray, ...]:
    """All pairs of edges sharing a node: ``(e1, e2, i, j)`` with ``e1 = (i, k)``, ``e2 = (j, k)``.

    Vectorised per distinct degree: the incident edges of all nodes of degree ``d`` form a
    ``(n_d, d)`` block whose ``d (d - 1) / 2`` column pairs are the edge pairs at those nodes.
    """
    m = len(edges)
    node = np.concatenate((edges[:, 0], edges[:, 1]))
    other = np.concatenate((edges[:, 1], edges[:, 0]))
    eid = np.concatenate((np.arange(m), np.arange(m)))
    order = np.argsort(node, kind="stable")
    node, other, eid = node[order], other[order], eid[order]
    deg = np.bincount(node, minlength=n_nodes)
    ptr = np.concatenate(([0], np.cumsum(deg)[:-1]))
    parts: list[tuple[np.ndarray, ...]] = []
    for d in np.unique(deg[deg >= 2]):
        nodes_d = np.flatnonzero(deg == d)
        pos = ptr[nodes_d][:, None] + np.arange(d)[None, :]  # (n_d, d)
        r, c = np.triu_indices(int(d), k=1)
        p1, p2 = pos[:, r].ravel(), pos[:, c].ravel()
        parts.append((eid[p1], eid[p2], other[p1], other[p2]))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    return tuple(np.concatenate(x) for x in zip(*parts, strict=True))


def edge_similarities(
    n_nodes: int, edges: Any, weights: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Similarities of all pairs of edges that share a node.

    Parameters
    ----------
    n_nodes : int
        Number of nodes.
    edges : array_like of int, shape (M, 2)
        Undirected edges, no self-loops or duplicates.
    weights : array_like of float, shape (M,), optional
        Edge weights; ``None`` for the unweighted (Jaccard) similarity.

    Returns
    -------
    e1, e2 : numpy.ndarray of int64, shape (P,)
        Indices of the two edges of every adjacent pair (``P = sum_k C(k_k, 2)``).
    similarity : numpy.ndarray of float64, shape (P,)
        ``S(e1, e2)``: Jaccard index of the inclusive neighbourhoods of the non-shared endpoints
        (unweighted) or Tanimoto coefficient of their weight vectors (weighted).

    References
    ----------
    .. [1] Ahn, Bagrow & Lehmann, *Nature* 466 (2010), Eq. 1, and Supplementary Information
       (weighted version).
    """
    n_nodes, e, w = _check_graph(n_nodes, edges, weights)
    e1, e2, i, j = _edge_pairs(n_nodes, e)
    if len(e1) == 0:
        return e1, e2, np.zeros(0)
    # Inclusive weighted adjacency: A_ij = w_ij, A_ii = mean weight of i's edges (1 unweighted).
    rows = np.concatenate((e[:, 0], e[:, 1]))
    cols = np.concatenate((e[:, 1], e[:, 0]))
    vals = np.concatenate((w, w))
    deg = np.bincount(rows, minlength=n_nodes)
    strength = np.bincount(rows, weights=vals, minlength=n_nodes)
    self_w = np.divide(strength, deg, out=np.zeros(n_nodes), where=deg > 0)
    diag = np.arange(n_nodes)
    if n_nodes <= _DENSE_MAX_NODES:
        # Small node sets (every network of the study): dense A and one BLAS product A A.
        a = np.zeros((n_nodes, n_nodes))
        a[rows, cols] = vals
        a[diag, diag] = self_w
        aa = a @ a
        prod, norm2 = aa[i, j], aa[diag, diag]
    else:
        # A A is nonzero only for nodes within distance 2 (about sum_k k_k^2 entries); look it up
        # at the needed (i, j) by sorted linear keys.
        a = sp.csr_matrix(
            (
                np.concatenate((vals, self_w)),
                (np.concatenate((rows, diag)), np.concatenate((cols, diag))),
            ),
            shape=(n_nodes, n_nodes),
        )
        aa = (a @ a).tocsr()
        aa.sort_indices()
        keys = np.repeat(np.arange(n_nodes, dtype=np.int64), np.diff(aa.indptr)) * n_nodes
        keys += aa.indices
        want = i * n_nodes + j
        pos = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
        prod = np.where(keys[pos] == want, aa.data[pos], 0.0)
        norm2 = aa.diagonal()
    den = norm2[i] + norm2[j] - prod
    sim = np.divide(prod, den, out=np.zeros_like(prod), where=den > 0)
    return e1, e2, sim


def _term(m_c: int, n_c: int) -> float:
    """``m_c (m_c - (n_c - 1)) / ((n_c - 2)(n_c - 1))``; 0 for two-node communities."""
    if n_c <= 2:
        return 0.0
    return m_c * (m_c - (n_c - 1)) / ((n_c - 2) * (n_c - 1))


def partition_density(edges: Any, edge_labels: Any) -> float:
    """Partition density ``D`` of an edge partition.

    Parameters
    ----------
    edges : array_like of int, shape (M, 2)
        The edges.
    edge_labels : array_like of int, shape (M,)
        Community label of every edge.

    Returns
    -------
    float
        ``D = (2 / M) sum_c m_c (m_c - (n_c - 1)) / ((n_c - 2)(n_c - 1))`` (0 for ``M = 0``).

    References
    ----------
    .. [1] Ahn, Bagrow & Lehmann, *Nature* 466 (2010), Eq. 2.
    """
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    lab = np.asarray(edge_labels, dtype=np.int64)
    if lab.shape != (len(e),):
        raise ValueError(f"edge_labels must have shape ({len(e)},), got {lab.shape}")
    if len(e) == 0:
        return 0.0
    _, lab = np.unique(lab, return_inverse=True)
    m_c = np.bincount(lab)
    # distinct (label, node) incidences give n_c
    inc = np.unique(np.column_stack((np.repeat(lab, 2), e.ravel())), axis=0)
    n_c = np.bincount(inc[:, 0], minlength=len(m_c))
    num = m_c * (m_c - (n_c - 1.0))
    den = (n_c - 2.0) * (n_c - 1.0)
    terms = np.divide(num, den, out=np.zeros(len(m_c)), where=n_c > 2)
    return float(2.0 / len(e) * terms.sum())


def link_communities(n_nodes: int, edges: Any, weights: Any = None) -> LinkCommunities:
    """Overlapping node communities by link clustering at maximum partition density.

    Parameters
    ----------
    n_nodes : int
        Number of nodes (``0 .. n_nodes - 1``).
    edges : array_like of int, shape (M, 2)
        Undirected edges; self-loops and duplicates are errors.
    weights : array_like of float, shape (M,), optional
        Edge weights for the weighted (Tanimoto) similarity; ``None`` for the unweighted
        (Jaccard) one. Negative weights (e.g. standardised weight functions) are accepted: the
        Tanimoto denominator ``|a|^2 + |b|^2 - a.b >= (|a|^2 + |b|^2) / 2`` stays positive.

    Returns
    -------
    LinkCommunities
        Edge labels, node communities, the maximum partition density and the dendrogram trace.

    Raises
    ------
    ValueError
        On out-of-range nodes, self-loops, duplicate edges, or weights of the wrong shape or not
        finite.

    Notes
    -----
    Single linkage over the edge-adjacency graph, replayed along its maximum spanning forest
    (module docstring). All edge pairs of equal similarity merge at once, and ``D`` is evaluated
    after each distinct level. Of the levels of maximum ``D`` the first one (highest similarity,
    finest partition) is kept; with no level above ``D = 0`` every edge is its own community.
    This is the rule of the authors' reference implementation (``link_clustering.py``, which
    updates the best partition only when ``D`` strictly increases).

    Cost: ``O(P log P)`` for ``P = sum_k C(k_k, 2)`` adjacent edge pairs, plus a Python loop over
    at most ``M - 1`` merges.

    References
    ----------
    .. [1] Y.-Y. Ahn, J. P. Bagrow and S. Lehmann, "Link communities reveal multiscale complexity
       in networks", *Nature* 466, 761-764 (2010).
    .. [2] LSBN paper, Algorithm 1 (ROPART), step 3.

    Examples
    --------
    Two triangles joined at node 2:

    >>> res = link_communities(5, [(0, 1), (0, 2), (1, 2), (2, 3), (2, 4), (3, 4)])
    >>> res.communities, round(res.partition_density, 3)
    ([[0, 1, 2], [2, 3, 4]], 1.0)
    """
    n_nodes, e, w = _check_graph(n_nodes, edges, weights)
    m = len(e)
    e1, e2, sim = edge_similarities(n_nodes, e, None if weights is None else w)

    # Maximum spanning forest of the edge-adjacency graph: a minimum spanning tree on the dense
    # ranks of the similarities (rank 1 = highest; ranks are exact and positive, so no arc is
    # lost as an explicit zero, and the levels are recovered exactly from the ranks).
    uniq, inv = np.unique(sim, return_inverse=True)
    n_levels = len(uniq)
    rank = n_levels - inv
    if len(e1):
        g = sp.coo_matrix((rank.astype(np.float64), (e1, e2)), shape=(m, m)).tocsr()
        forest = minimum_spanning_tree(g).tocoo()
        f_rank = np.rint(forest.data).astype(np.int64)
        order = np.argsort(f_rank, kind="stable")
        f_u, f_v, f_rank = forest.row[order], forest.col[order], f_rank[order]
    else:
        f_u = f_v = f_rank = np.zeros(0, dtype=np.int64)

    # Replay the forest arcs in decreasing similarity with a union-find; keep D up to date.
    parent = list(range(m))
    m_c = [1] * m
    nodes_c: list[set[int] | None] = [{int(a), int(b)} for a, b in e]
    d_sum = 0.0  # sum_c of the partition-density terms (all 0 for single edges)

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]  # path halving
            x = parent[x]
        return x

    levels: list[float] = []
    densities: list[float] = []
    best_d, best_merges, best_level = 0.0, 0, np.inf
    fu, fv, fr = f_u.tolist(), f_v.tolist(), f_rank.tolist()
    k = 0
    while k < len(fr):
        r = fr[k]
        while k < len(fr) and fr[k] == r:  # every merge of this similarity level
            a, b = find(fu[k]), find(fv[k])
            if m_c[a] < m_c[b]:
                a, b = b, a
            na, nb = nodes_c[a], nodes_c[b]
            assert na is not None and nb is not None
            d_sum -= _term(m_c[a], len(na)) + _term(m_c[b], len(nb))
            if len(na) < len(nb):
                na, nb = nb, na
            na |= nb
            parent[b] = a
            m_c[a] += m_c[b]
            nodes_c[a], nodes_c[b] = na, None
            d_sum += _term(m_c[a], len(na))
            k += 1
        level = float(uniq[n_levels - r])
        dens = 2.0 / m * d_sum
        levels.append(level)
        densities.append(dens)
        if dens > best_d:
            best_d, best_merges, best_level = dens, k, level

    # Labels of the best cut: components of the forest arcs merged up to it.
    if m:
        sel = slice(0, best_merges)
        cut = sp.coo_matrix((np.ones(best_merges), (f_u[sel], f_v[sel])), shape=(m, m)).tocsr()
        _, raw = connected_components(cut, directed=False)
        _, first = np.unique(raw, return_index=True)
        labels = np.argsort(np.argsort(first))[raw]  # renumber by first occurrence
    else:
        labels = np.zeros(0, dtype=np.int64)
    n_comm = int(labels.max()) + 1 if m else 0
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(n_comm + 1))
    communities = [np.unique(e[order[bounds[c] : bounds[c + 1]]]).tolist() for c in range(n_comm)]
    logger.debug(
        "link_communities: %d nodes, %d edges, %d adjacent edge pairs, %d levels; "
        "D = %.4f at S = %.4g, %d communities",
        n_nodes,
        m,
        len(e1),
        len(levels),
        best_d,
        best_level,
        n_comm,
    )
    return LinkCommunities(
        n_nodes=n_nodes,
        edges=e,
        edge_labels=labels,
        communities=communities,
        partition_density=float(best_d),
        threshold=float(best_level),
        levels=np.asarray(levels, dtype=np.float64),
        densities=np.asarray(densities, dtype=np.float64),
    )
