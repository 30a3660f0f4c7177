"""Structure-recovery metrics: skeleton precision, recall, F-score, hit / additional / missing
edges, and the structural Hamming distance.

LSBN (Section V) scores a learned structure as a binary classification of every unordered node
pair: an edge present in both the learned and the true skeleton is a *hit* (true positive), one
only in the learned skeleton an *additional* edge (false positive), one only in the true skeleton
a *missing* edge (false negative). Precision = TP / (TP + FP), recall = TP / (TP + FN), F = their
harmonic mean. Directions are ignored.

Graphs are given as ``(p, p)`` adjacency matrices (``A[u, v]`` for ``u -> v``; an undirected edge
sets both entries) or as edge lists over ``p`` nodes.

References
----------
.. [1] LSBN: A Large-Scale Bayesian Structure Learning Framework for Model Averaging, Section V
   (hit / additional / missing edges; precision, recall, F-score).
.. [2] Tsamardinos, I., Brown, L. E., & Aliferis, C. F. (2006). The max-min hill-climbing Bayesian
   network structure learning algorithm. *Machine Learning*, 65(1), 31-78. Section 6 (structural
   Hamming distance between PDAGs).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["as_adjacency", "shd", "skeleton_metrics"]

logger = logging.getLogger(__name__)


def as_adjacency(graph: Any, n_nodes: int | None = None) -> np.ndarray:
    """A graph as a boolean ``(p, p)`` adjacency matrix.

    Parameters
    ----------
    graph : array_like of shape (p, p), or iterable of (int, int)
        An adjacency matrix (nonzero = edge), or directed edges ``(u, v)`` over nodes ``0..p-1``.
    n_nodes : int, optional
        Number of nodes; required for an edge list.

    Returns
    -------
    numpy.ndarray of bool, shape (p, p)

    Raises
    ------
    ValueError
        If a matrix is not square, has a nonzero diagonal or disagrees with ``n_nodes``, or an edge
        list has no ``n_nodes``, a self-loop or an index out of range.
    """
    arr = graph if isinstance(graph, np.ndarray) else None
    # a square array is a matrix unless n_nodes says it is a (2, 2) edge list of a larger graph
    if arr is not None and arr.ndim == 2 and arr.shape[0] == arr.shape[1]:
        if n_nodes is None or arr.shape[0] == n_nodes or arr.shape[1] != 2:
            adj = arr.astype(bool)
            if n_nodes is not None and adj.shape[0] != n_nodes:
                raise ValueError(f"adjacency has {adj.shape[0]} nodes, expected {n_nodes}")
            if adj.diagonal().any():
                raise ValueError(
                    f"adjacency has a self-loop at node {int(np.argmax(adj.diagonal()))}"
                )
            return adj
    if n_nodes is None:
        raise ValueError("n_nodes is required for an edge list")
    adj = np.zeros((n_nodes, n_nodes), dtype=bool)
    for e in _edges(graph):
        u, v = e
        if not (0 <= u < n_nodes and 0 <= v < n_nodes):
            raise ValueError(f"edge {e} out of range for {n_nodes} nodes")
        if u == v:
            raise ValueError(f"self-loop {e}")
        adj[u, v] = True
    return adj


def _edges(graph: Iterable[Any]) -> list[tuple[int, int]]:
    out = []
    for e in graph:
        if len(e) != 2:
            raise ValueError(f"edges must be pairs, got {e!r}")
        out.append((int(e[0]), int(e[1])))
    return out


def skeleton_metrics(learned: Any, true: Any, n_nodes: int | None = None) -> dict[str, float]:
    """Skeleton hit / additional / missing edges, precision, recall and F-score.

    Parameters
    ----------
    learned, true : adjacency matrix or edge list
        The learned and the true graph (see :func:`as_adjacency`); directions are ignored.
    n_nodes : int, optional
        Number of nodes, required when both graphs are edge lists.

    Returns
    -------
    dict
        ``hit`` (TP), ``additional`` (FP), ``missing`` (FN), ``precision``, ``recall``,
        ``f_score``. Precision is 1 when nothing is learned, recall 1 when the true graph is
        empty (no positive call was wrong, no true edge was missed), and the F-score is 0 when
        precision and recall are both 0.

    Raises
    ------
    ValueError
        If the two graphs have different numbers of nodes (or as :func:`as_adjacency`).

    References
    ----------
    .. [1] LSBN, Section V: every unordered node pair is a binary decision.

    Examples
    --------
    >>> m = skeleton_metrics([(0, 1), (1, 2), (0, 2)], [(0, 1), (2, 1), (2, 3)], n_nodes=4)
    >>> m["hit"], m["additional"], m["missing"], round(m["f_score"], 3)
    (2, 1, 1, 0.667)
    """
    p = n_nodes
    if p is None:
        for g in (learned, true):
            arr = g if isinstance(g, np.ndarray) else None
            if arr is not None and arr.ndim == 2 and arr.shape[0] == arr.shape[1]:
                p = arr.shape[0]
                break
    a = as_adjacency(learned, p)
    b = as_adjacency(true, p)
    if a.shape != b.shape:
        raise ValueError(f"graphs have {a.shape[0]} and {b.shape[0]} nodes")
    sa = np.triu(a | a.T, 1)
    sb = np.triu(b | b.T, 1)
    tp = int((sa & sb).sum())
    fp = int((sa & ~sb).sum())
    fn = int((~sa & sb).sum())
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "hit": tp,
        "additional": fp,
        "missing": fn,
        "precision": precision,
        "recall": recall,
        "f_score": f,
    }


def shd(learned: Any, true: Any, n_nodes: int | None = None) -> int:
    """Structural Hamming distance between two (partially) directed graphs.

    The number of node pairs whose connection differs: an edge missing from one graph, or present
    in both but with a different mark (``u -> v``, ``v -> u`` or undirected ``u - v``). Each pair
    counts at most once (a reversed edge costs 1).

    Parameters
    ----------
    learned, true : adjacency matrix or edge list
        ``A[u, v] & ~A[v, u]`` is ``u -> v``; both entries set is an undirected edge.
    n_nodes : int, optional
        Number of nodes, required when both graphs are edge lists.

    Returns
    -------
    int

    References
    ----------
    .. [1] Tsamardinos, Brown & Aliferis (2006), Machine Learning 65, Section 6.

    Examples
    --------
    >>> shd([(0, 1), (1, 2)], [(1, 0), (1, 2), (2, 3)], n_nodes=4)
    2
    """
    p = n_nodes
    if p is None:
        for g in (learned, true):
            if isinstance(g, np.ndarray) and g.ndim == 2 and g.shape[0] == g.shape[1]:
                p = g.shape[0]
                break
    a = as_adjacency(learned, p)
    b = as_adjacency(true, p)
    if a.shape != b.shape:
        raise ValueError(f"graphs have {a.shape[0]} and {b.shape[0]} nodes")
    iu, ju = np.triu_indices(a.shape[0], k=1)
    # code every pair as (u -> v, v -> u): none, forward, backward or undirected
    ca = a[iu, ju].astype(np.int8) + 2 * a[ju, iu]
    cb = b[iu, ju].astype(np.int8) + 2 * b[ju, iu]
    return int((ca != cb).sum())
