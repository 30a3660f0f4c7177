"""The binary pairwise MRF of Liu & Page (2013): one parameter per edge, agreement potentials.

For a graph with edges ``c = (u, v)`` and parameters ``0 < theta_c < 1``,

.. math::

    \\tilde P(x; \\theta) = \\prod_c \\theta_c^{I(x_u = x_v)} (1 - \\theta_c)^{I(x_u \\ne x_v)},
    \\qquad P(x; \\theta) = \\tilde P(x; \\theta) / Z(\\theta)

(Sec. 2, Eq. 1). Writing ``s_c(x) = I(x_u = x_v)`` and ``w_c = logit(theta_c)``,
``log P~(x) = s(x) . w + sum_c log(1 - theta_c)``: an exponential family whose sufficient statistics
are the edge agreement indicators. Every likelihood in this package is computed from the
per-edge agreement counts ``S_c = sum_j s_c(x_j)`` of a sample set.

Samples are ``(n, p)`` arrays over ``{0, 1}``; ``{-1, 1}`` input (the Senate coding) is converted.

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Sec. 2, Eq. (1).
.. [2] J. Besag, "Statistical analysis of non-lattice data", *JRSS-D* 24(3):179-195, 1975
   (pseudo-likelihood).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from bnstudy.mrf.graph import PairwiseGraph

__all__ = [
    "BinaryPairwiseMRF",
    "THETA_EPS",
    "agreement_counts",
    "check_samples",
    "check_theta",
    "log_pseudo_likelihood",
    "logit",
]

logger = logging.getLogger(__name__)

#: Parameters are kept in ``[THETA_EPS, 1 - THETA_EPS]`` wherever an estimate could reach 0 or 1.
THETA_EPS = 1e-6


def logit(theta: np.ndarray) -> np.ndarray:
    """``log(theta / (1 - theta))``, elementwise."""
    theta = np.asarray(theta, dtype=np.float64)
    return np.log(theta) - np.log1p(-theta)


def check_theta(
    theta: np.ndarray, n_edges: int | None = None, *, name: str = "theta"
) -> np.ndarray:
    """Validate edge parameters: finite, strictly inside ``(0, 1)``, one per edge.

    Parameters
    ----------
    theta : array_like of float, shape (E,)
    n_edges : int, optional
        Required length.
    name : str, optional
        Name used in the error message.

    Returns
    -------
    numpy.ndarray of float64, shape (E,)

    Raises
    ------
    ValueError
        If ``theta`` is not one-dimensional, has the wrong length, or holds a value outside the open
        interval ``(0, 1)`` (the message names the first bad index and value).
    """
    t = np.asarray(theta, dtype=np.float64)
    if t.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {t.shape}")
    if n_edges is not None and t.shape[0] != n_edges:
        raise ValueError(f"{name} has {t.shape[0]} values but the graph has {n_edges} edges")
    bad = ~((t > 0.0) & (t < 1.0))
    if bad.any():
        c = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{c}] = {t[c]!r} is outside the open interval (0, 1)")
    return t


def check_samples(X: np.ndarray, n_nodes: int | None = None) -> np.ndarray:
    """Validate samples and return them over ``{0, 1}`` as ``int8``.

    Parameters
    ----------
    X : array_like, shape (n, p)
        Values in ``{0, 1}`` or in ``{-1, 1}`` (``-1`` becomes 0). Booleans are accepted.
    n_nodes : int, optional
        Required number of columns.

    Returns
    -------
    numpy.ndarray of int8, shape (n, p)

    Raises
    ------
    ValueError
        If ``X`` is not two-dimensional, has the wrong number of columns, or its values are not a
        subset of ``{0, 1}`` or of ``{-1, 1}`` (the message lists the values found).

    Examples
    --------
    >>> check_samples([[-1, 1], [1, 1]]).tolist()
    [[0, 1], [1, 1]]
    """
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"samples must be a 2-D array (samples x nodes), got shape {arr.shape}")
    if n_nodes is not None and arr.shape[1] != n_nodes:
        raise ValueError(f"samples have {arr.shape[1]} columns but the graph has {n_nodes} nodes")
    if arr.dtype == bool:
        return arr.astype(np.int8)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"samples must be numeric, got dtype {arr.dtype}")
    if arr.dtype.kind in "iu" and arr.size:
        # integers: the range decides, without sorting the whole array (np.unique)
        lo, hi = arr.min(), arr.max()
        if lo >= 0 and hi <= 1:
            return arr.astype(np.int8)
        if lo >= -1 and hi <= 1 and not (arr == 0).any():
            return (arr > 0).astype(np.int8)
    values = np.unique(arr)
    if np.all(np.isin(values, (0, 1))):
        return arr.astype(np.int8)
    if np.all(np.isin(values, (-1, 1))):
        return (arr > 0).astype(np.int8)
    raise ValueError(
        f"samples must take values in {{0, 1}} or in {{-1, 1}}, found {values[:10].tolist()}"
    )


def agreement_counts(graph: PairwiseGraph, X: np.ndarray) -> np.ndarray:
    """Per-edge agreement counts ``S_c = #{j : x_j[u] == x_j[v]}`` (the sufficient statistics).

    Parameters
    ----------
    graph : PairwiseGraph
    X : array_like, shape (n, p)
        Samples (validated with :func:`check_samples`).

    Returns
    -------
    numpy.ndarray of int64, shape (E,)
    """
    X = check_samples(X, graph.n_nodes)
    # each node's column packed to bits: an edge's disagreements are the set bits of an XOR
    packed = np.packbits(X.T, axis=1)
    u, v = graph.edges[:, 0], graph.edges[:, 1]
    disagree = np.bitwise_count(packed[u] ^ packed[v]).sum(axis=1, dtype=np.int64)
    return X.shape[0] - disagree


def _coupling_matrix(graph: PairwiseGraph, w: np.ndarray) -> sparse.csr_matrix:
    """Symmetric sparse ``(p, p)`` matrix with ``w_c`` at ``(u, v)`` and ``(v, u)``."""
    u, v = graph.edges[:, 0], graph.edges[:, 1]
    return sparse.csr_matrix(
        (np.r_[w, w], (np.r_[u, v], np.r_[v, u])), shape=(graph.n_nodes, graph.n_nodes)
    )


def log_pseudo_likelihood(graph: PairwiseGraph, theta: np.ndarray, X: np.ndarray) -> float:
    """Log pseudo-likelihood ``sum_j sum_u log P(x_ju | x_j,-u; theta)`` (Besag 1975).

    The conditional log-odds of ``x_u = 1`` is ``h_u = sum_{v ~ u} w_uv (2 x_v - 1)`` with
    ``w = logit(theta)``, so the whole sum is one sparse product over all samples.

    Parameters
    ----------
    graph : PairwiseGraph
    theta : array_like of float, shape (E,)
    X : array_like, shape (n, p)
        Samples over ``{0, 1}`` or ``{-1, 1}``.

    Returns
    -------
    float

    References
    ----------
    .. [1] Besag (1975); Liu & Page (2013), Secs. 4.3 and 5 (test-set LPL, Table 2).
    """
    theta = check_theta(theta, graph.n_edges)
    spins = 2.0 * check_samples(X, graph.n_nodes) - 1.0
    field = (_coupling_matrix(graph, logit(theta)) @ spins.T).T
    # log sigmoid(spin * field) = -softplus(-spin * field), computed stably
    return float(-np.logaddexp(0.0, -spins * field).sum())


@dataclass(frozen=True, eq=False)
class BinaryPairwiseMRF:
    """A binary pairwise MRF with agreement potentials (Liu & Page 2013, Eq. 1).

    Parameters
    ----------
    graph : PairwiseGraph
    theta : array_like of float, shape (E,)
        ``theta_c`` in ``(0, 1)``: the potential of edge ``c`` is ``theta_c`` when its endpoints
        agree and ``1 - theta_c`` when they differ.

    Raises
    ------
    ValueError
        If ``theta`` has the wrong length or a value outside ``(0, 1)``.

    Examples
    --------
    >>> from bnstudy.mrf.graph import grid
    >>> m = BinaryPairwiseMRF(grid(2, 2), [0.2, 0.4, 0.6, 0.8])
    >>> m.n_edges
    4
    """

    graph: PairwiseGraph
    theta: np.ndarray

    def __post_init__(self) -> None:
        t = check_theta(self.theta, self.graph.n_edges).copy()
        t.setflags(write=False)
        object.__setattr__(self, "theta", t)

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return self.graph.n_nodes

    @property
    def n_edges(self) -> int:
        """Number of edges (= parameters)."""
        return self.graph.n_edges

    @property
    def weights(self) -> np.ndarray:
        """Natural parameters ``w = logit(theta)``."""
        return logit(self.theta)

    def log_unnormalized(self, X: np.ndarray) -> np.ndarray:
        """``log P~(x_j; theta)`` for each sample (shape ``(n,)``)."""
        X = check_samples(X, self.n_nodes)
        u, v = self.graph.edges[:, 0], self.graph.edges[:, 1]
        agree = X[:, u] == X[:, v]
        return agree @ self.weights + np.log1p(-self.theta).sum()

    def log_pseudo_likelihood(self, X: np.ndarray) -> float:
        """See :func:`log_pseudo_likelihood`."""
        return log_pseudo_likelihood(self.graph, self.theta, X)
