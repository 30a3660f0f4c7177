"""Undirected graphs for binary pairwise MRFs: validation, builders, colourings and tree layouts.

A :class:`PairwiseGraph` is ``n_nodes`` nodes ``0 .. p-1`` and an ``(E, 2)`` integer edge array.
Edge ``c`` carries parameter ``theta[c]`` of the model (:mod:`bnstudy.mrf.model`); the edge order is
therefore part of the graph's identity and is never changed after validation.

Builders: :func:`binary_tree` (the perfect binary tree of Liu & Page 2013, Sec. 4.1), :func:`grid`
(the 4x4 and 30x30 grids of Secs. 4.2-4.3) and :func:`from_edges`.

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Secs. 4.1-4.3 and 5.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

__all__ = ["PairwiseGraph", "TreeLayout", "binary_tree", "from_edges", "grid"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class TreeLayout:
    """Breadth-first layout of a forest, used by the exact tree sampler.

    Attributes
    ----------
    roots : ndarray of int
        One root per connected component (its smallest node).
    levels : list of ndarray of int
        ``levels[d]`` holds the nodes at depth ``d >= 1``.
    parent : ndarray of int, shape (p,)
        Parent of each node (``-1`` for roots).
    parent_edge : ndarray of int, shape (p,)
        Index of the edge joining each node to its parent (``-1`` for roots).
    """

    roots: np.ndarray
    levels: list[np.ndarray]
    parent: np.ndarray
    parent_edge: np.ndarray


@dataclass(frozen=True, eq=False)
class PairwiseGraph:
    """A simple undirected graph on nodes ``0 .. n_nodes - 1`` with an ordered edge list.

    Use :func:`from_edges`, :func:`grid` or :func:`binary_tree` to build one; the constructor
    validates its input.

    Parameters
    ----------
    n_nodes : int
        Number of nodes ``p``.
    edges : array_like of int, shape (E, 2)
        Edge ``c`` joins ``edges[c, 0]`` and ``edges[c, 1]``.
    name : str, optional
        Label used in messages.

    Raises
    ------
    ValueError
        If ``n_nodes < 1``, ``edges`` is not ``(E, 2)`` integers, an edge names a node outside
        ``0 .. n_nodes - 1``, an edge is a self-loop, or an edge is listed twice.
    """

    n_nodes: int
    edges: np.ndarray
    name: str = "graph"

    def __post_init__(self) -> None:
        p = int(self.n_nodes)
        if p < 1:
            raise ValueError(f"n_nodes must be >= 1, got {self.n_nodes}")
        e = np.asarray(self.edges)
        if e.size == 0:
            e = np.zeros((0, 2), dtype=np.int64)
        if e.ndim != 2 or e.shape[1] != 2:
            raise ValueError(f"edges must have shape (E, 2), got {e.shape}")
        if e.dtype.kind not in "iu":
            if e.dtype.kind == "f" and np.all(e == np.round(e)):
                e = e.astype(np.int64)
            else:
                raise ValueError(f"edges must be integer node indices, got dtype {e.dtype}")
        e = e.astype(np.int64)
        bad = (e < 0) | (e >= p)
        if bad.any():
            c = int(np.argwhere(bad.any(axis=1))[0, 0])
            raise ValueError(
                f"edge {c} = {tuple(e[c].tolist())} names an unknown node (nodes are 0 .. {p - 1})"
            )
        loops = e[:, 0] == e[:, 1]
        if loops.any():
            c = int(np.flatnonzero(loops)[0])
            raise ValueError(f"edge {c} = {tuple(e[c].tolist())} is a self-loop")
        key = np.sort(e, axis=1)
        _, first, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
        if (counts > 1).any():
            dup = key[first[np.flatnonzero(counts > 1)[0]]]
            raise ValueError(f"edge {tuple(dup.tolist())} is listed more than once")
        e.setflags(write=False)
        object.__setattr__(self, "n_nodes", p)
        object.__setattr__(self, "edges", e)

    @property
    def n_edges(self) -> int:
        """Number of edges ``r``."""
        return int(self.edges.shape[0])

    def __repr__(self) -> str:
        return f"PairwiseGraph(name={self.name!r}, n_nodes={self.n_nodes}, n_edges={self.n_edges})"

    @cached_property
    def incidence(self) -> sparse.csr_matrix:
        """Symmetric ``(p, p)`` sparse matrix whose ``(u, v)`` entry is ``1 + c`` for edge ``c``."""
        u, v = self.edges[:, 0], self.edges[:, 1]
        c = np.arange(1, self.n_edges + 1, dtype=np.float64)
        return sparse.csr_matrix(
            (np.r_[c, c], (np.r_[u, v], np.r_[v, u])), shape=(self.n_nodes, self.n_nodes)
        )

    @cached_property
    def n_components(self) -> int:
        """Number of connected components (isolated nodes count)."""
        return int(csgraph.connected_components(self.incidence, directed=False)[0])

    @property
    def is_forest(self) -> bool:
        """Whether the graph has no cycle (``E == p - components``)."""
        return self.n_edges == self.n_nodes - self.n_components

    @cached_property
    def colouring(self) -> list[np.ndarray]:
        """Partition of the nodes into independent sets, for blocked Gibbs sampling.

        Bipartite graphs (grids, trees) get their 2-colouring (the checkerboard); other graphs get
        networkx's greedy ``largest_first`` colouring. Deterministic.
        """
        g = nx.Graph()
        g.add_nodes_from(range(self.n_nodes))
        g.add_edges_from(self.edges.tolist())
        if nx.is_bipartite(g):
            colour = nx.bipartite.color(g)
        else:
            colour = nx.greedy_color(g, strategy="largest_first")
        labels = np.array([colour[u] for u in range(self.n_nodes)])
        sets = [np.flatnonzero(labels == k) for k in np.unique(labels)]
        logger.debug(
            "%s: %d colour classes of sizes %s", self.name, len(sets), [len(s) for s in sets]
        )
        return sets

    @cached_property
    def tree_layout(self) -> TreeLayout:
        """Breadth-first layout from one root per component (forests only).

        Raises
        ------
        ValueError
            If the graph has a cycle.
        """
        if not self.is_forest:
            raise ValueError(f"{self.name} is not a forest (it has a cycle)")
        p = self.n_nodes
        ncomp, comp = csgraph.connected_components(self.incidence, directed=False)
        roots = np.array([int(np.flatnonzero(comp == k)[0]) for k in range(ncomp)])
        parent = np.full(p, -1, dtype=np.int64)
        adj = self.incidence
        for root in roots:
            order, pred = csgraph.breadth_first_order(
                adj, int(root), directed=False, return_predecessors=True
            )
            parent[order[1:]] = pred[order[1:]]
        # depth = number of ancestors: climb all nodes one generation at a time
        depth = np.zeros(p, dtype=np.int64)
        anc = parent.copy()
        while (has := anc >= 0).any():
            depth[has] += 1
            anc[has] = parent[anc[has]]
        parent_edge = np.full(p, -1, dtype=np.int64)
        has_parent = parent >= 0
        nodes = np.flatnonzero(has_parent)
        parent_edge[nodes] = np.asarray(adj[nodes, parent[nodes]]).ravel().astype(np.int64) - 1
        levels = [np.flatnonzero(depth == d) for d in range(1, int(depth.max(initial=0)) + 1)]
        return TreeLayout(roots=roots, levels=levels, parent=parent, parent_edge=parent_edge)

    def to_networkx(self) -> nx.Graph:
        """The graph as a :class:`networkx.Graph` with edge attribute ``index``."""
        g = nx.Graph()
        g.add_nodes_from(range(self.n_nodes))
        for c, (u, v) in enumerate(self.edges.tolist()):
            g.add_edge(u, v, index=c)
        return g


def from_edges(n_nodes: int, edges: np.ndarray, *, name: str = "graph") -> PairwiseGraph:
    """Build and validate a :class:`PairwiseGraph`.

    Parameters
    ----------
    n_nodes : int
        Number of nodes.
    edges : array_like of int, shape (E, 2)
        Edge list; its order fixes the parameter order.
    name : str, optional
        Label used in messages.

    Returns
    -------
    PairwiseGraph

    Raises
    ------
    ValueError
        Self-loops, unknown nodes or duplicate edges (see :class:`PairwiseGraph`).

    Examples
    --------
    >>> from_edges(3, [[0, 1], [1, 2]]).n_edges
    2
    """
    return PairwiseGraph(n_nodes=n_nodes, edges=np.asarray(edges), name=name)


def binary_tree(height: int) -> PairwiseGraph:
    """The perfect binary tree of the given height (heap numbering: children of ``u`` are ``2u+1, 2u+2``).

    Parameters
    ----------
    height : int
        Number of edge levels; ``height = 12`` gives the paper's 8,191 nodes and 8,190 edges.

    Returns
    -------
    PairwiseGraph
        Edge ``c`` joins node ``c + 1`` to its parent ``c // 2``.

    Examples
    --------
    >>> g = binary_tree(12)
    >>> g.n_nodes, g.n_edges
    (8191, 8190)

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 4.1.
    """
    if int(height) < 0:
        raise ValueError(f"height must be >= 0, got {height}")
    p = 2 ** (int(height) + 1) - 1
    child = np.arange(1, p)
    return PairwiseGraph(p, np.c_[(child - 1) // 2, child], name=f"binary_tree({height})")


def grid(rows: int, cols: int) -> PairwiseGraph:
    """The ``rows x cols`` 4-neighbour grid; node ``i * cols + j`` sits in row ``i``, column ``j``.

    Parameters
    ----------
    rows, cols : int
        Grid size; ``grid(4, 4)`` has 24 edges, ``grid(30, 30)`` 900 nodes and 1,740 edges.

    Returns
    -------
    PairwiseGraph
        Horizontal edges first (row by row), then vertical edges.

    Examples
    --------
    >>> grid(30, 30).n_edges
    1740

    References
    ----------
    .. [1] Liu & Page (2013), Secs. 4.2 and 4.3.
    """
    rows, cols = int(rows), int(cols)
    if rows < 1 or cols < 1:
        raise ValueError(f"grid size must be positive, got {rows}x{cols}")
    idx = np.arange(rows * cols).reshape(rows, cols)
    horizontal = np.c_[idx[:, :-1].ravel(), idx[:, 1:].ravel()]
    vertical = np.c_[idx[:-1, :].ravel(), idx[1:, :].ravel()]
    return PairwiseGraph(rows * cols, np.r_[horizontal, vertical], name=f"grid({rows}x{cols})")
