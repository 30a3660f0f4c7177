"""Exact computations: partition function, likelihood, edge marginals, sampling and MLE.

Two exact routes:

* **Forests (closed form).** Summing a leaf out of ``P~`` gives ``theta_c + (1 - theta_c) = 1`` for
  its edge, so peeling leaves one by one leaves a factor 2 per component:
  ``Z(theta) = 2^(p - E)`` (``Z = 2`` for a tree, whatever ``theta``). Equivalently, the agreement
  indicators ``s_c = I(x_u = x_v)`` of a tree are independent ``Bernoulli(theta_c)`` and the root is
  uniform, so the log-likelihood is ``sum_c [S_c log theta_c + (n - S_c) log(1 - theta_c)] - n log 2``
  and the MLE is ``theta_c = S_c / n`` (Liu & Page 2013, Sec. 4.1: "closed form").
* **Enumeration (small graphs).** The model is invariant under flipping every node, so only the
  ``2^(p-1)`` states with ``x_0 = 0`` are enumerated (the other half has the same agreement
  pattern); states are processed in chunks of ``2^16`` with one matrix product each.
  ``Z(theta) = 2 sum_{x: x_0=0} exp(s(x) . w) prod_c (1 - theta_c)``.

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Secs. 2, 4.1 and 4.2.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator

import numpy as np
from scipy import optimize
from scipy.special import logsumexp

from bnstudy.mrf.graph import PairwiseGraph
from bnstudy.mrf.model import (
    THETA_EPS,
    agreement_counts,
    check_samples,
    check_theta,
    logit,
)

__all__ = [
    "MAX_ENUMERATION_NODES",
    "EnumeratedAgreements",
    "edge_agreement_probabilities",
    "enumerate_agreements",
    "exact_mle",
    "log_likelihood",
    "log_partition",
    "sample_enumeration",
    "sample_tree",
]

logger = logging.getLogger(__name__)

#: Largest graph (in nodes) handled by enumeration; ``2^(p-1)`` states are visited.
MAX_ENUMERATION_NODES = 24
_CHUNK = 2**16


def _check_enumerable(graph: PairwiseGraph) -> None:
    if graph.n_nodes > MAX_ENUMERATION_NODES:
        raise ValueError(
            f"{graph.name} has {graph.n_nodes} nodes; exact enumeration is limited to "
            f"{MAX_ENUMERATION_NODES} nodes (2^(p-1) states)"
        )


def _half_state_bits(graph: PairwiseGraph, start: int, stop: int) -> np.ndarray:
    """States ``start .. stop-1`` of the half space (``x_0 = 0``) as an ``(k, p)`` int8 array."""
    idx = np.arange(start, stop, dtype=np.int64)[:, None]
    shifts = np.arange(graph.n_nodes - 1, dtype=np.int64)[None, :]
    bits = ((idx >> shifts) & 1).astype(np.int8)
    return np.concatenate([np.zeros((stop - start, 1), dtype=np.int8), bits], axis=1)


def _agreement_chunks(graph: PairwiseGraph) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(start, A)`` with ``A[k, c] = s_c(state start + k)`` as float64, chunk by chunk."""
    _check_enumerable(graph)
    n_half = 2 ** (graph.n_nodes - 1)
    u, v = graph.edges[:, 0], graph.edges[:, 1]
    for start in range(0, n_half, _CHUNK):
        bits = _half_state_bits(graph, start, min(start + _CHUNK, n_half))
        yield start, (bits[:, u] == bits[:, v]).astype(np.float64)


def enumerate_agreements(graph: PairwiseGraph) -> np.ndarray:
    """All agreement patterns of the half state space, ``(2^(p-1), E)`` float64.

    Used by :func:`bnstudy.mrf.grouping.gibbs_exactl`, which keeps the matrix for the whole run.

    Raises
    ------
    ValueError
        If the graph has more than :data:`MAX_ENUMERATION_NODES` nodes.
    """
    return np.concatenate([a for _, a in _agreement_chunks(graph)], axis=0)


_EXACT_CODE_BITS = 52  # a mixed-radix code below 2^53 (float64's integers) is exact


def _patterns_per_group(A: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct per-group agreement patterns of the rows of ``A``, with their multiplicities.

    Row ``x`` of ``A`` (one column per edge) becomes ``a_k(x)`` = agreeing edges of group ``k``;
    rows are coded in mixed radix (base ``m_k + 1``) so that equal patterns are found by one sort.
    When the codes would not be exact in float64 (``prod(m_k + 1) > 2^53``), the patterns are
    merged by a sort of the rows instead.
    """
    groups = np.asarray(groups)
    if groups.shape != (A.shape[1],) or not np.issubdtype(groups.dtype, np.integer):
        raise ValueError(f"groups must be {A.shape[1]} integer labels, got shape {groups.shape}")
    if groups.min() < 0:
        raise ValueError(f"group labels must be >= 0, got {int(groups.min())}")
    radix = np.bincount(groups).astype(np.int64) + 1
    if np.log2(radix).sum() > _EXACT_CODE_BITS:
        onehot = np.zeros((A.shape[1], radix.size))
        onehot[np.arange(A.shape[1]), groups] = 1.0
        patterns, mult = np.unique(A @ onehot, axis=0, return_counts=True)
        return patterns, mult
    stride = np.cumprod(np.r_[1, radix[:-1]])
    code = np.einsum("ij,j->i", A, stride[groups].astype(np.float64)).astype(np.int64)
    code, mult = np.unique(code, return_counts=True)
    patterns = (code[:, None] // stride[None, :]) % radix[None, :]
    return patterns.astype(np.float64), mult


class EnumeratedAgreements:
    """Exact agreement statistics of a small model: marginals and draws of ``n`` iid samples' counts.

    Keeps the agreement patterns of the ``2^(p-1)`` half-space states (the other half has the same
    patterns) as a matrix ``A`` with a multiplicity per row. Tied by a grouping, a row counts the
    agreeing edges of each group and ``w`` has one natural parameter per group; equal rows are
    merged (the 4x4 grid's 32,768 states have a few thousand patterns over 5 groups). A draw of the
    counts ``sum_j s(x_j)`` of ``n`` exact, independent samples is ``n`` inverse-CDF draws of a
    row: what the auxiliary-variable samplers need of their particles, with no Gibbs chain and no
    burn-in.

    Parameters
    ----------
    graph : PairwiseGraph
        At most :data:`MAX_ENUMERATION_NODES` nodes.
    groups : array_like of int, shape (E,), optional
        Group of each edge, ``0 .. k-1``: the statistics are then per group.

    Examples
    --------
    >>> import numpy as np
    >>> from bnstudy.mrf.graph import grid
    >>> g = grid(3, 3)
    >>> ea = EnumeratedAgreements(g)
    >>> w = np.full(g.n_edges, 0.8)
    >>> bool(np.allclose(ea.marginals(w), edge_agreement_probabilities(g, 1 / (1 + np.exp(-w)))))
    True
    >>> tied = ea.tied(np.r_[np.zeros(6, int), np.ones(6, int)])
    >>> tied.draw_counts([0.8, 0.8], 50, rng=np.random.default_rng(0)).shape
    (2,)
    """

    def __init__(self, graph: PairwiseGraph, groups: np.ndarray | None = None) -> None:
        self.graph = graph
        self._A = enumerate_agreements(graph)  # raises ValueError on graphs too large
        self._log_mult = None
        if groups is not None:
            self._A, mult = _patterns_per_group(self._A, groups)
            self._log_mult = np.log(mult)

    @property
    def n_stats(self) -> int:
        """Length of ``w`` and of the statistics: edges, or groups when tied."""
        return int(self._A.shape[1])

    def tied(self, groups: np.ndarray) -> EnumeratedAgreements:
        """The same graph with its statistics per group (no new enumeration)."""
        if self._log_mult is not None:
            raise ValueError("only an untied EnumeratedAgreements can be tied")
        out = copy.copy(self)
        out._A, mult = _patterns_per_group(self._A, groups)
        out._log_mult = np.log(mult)
        return out

    def _probabilities(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=np.float64)
        if w.shape != (self.n_stats,):
            raise ValueError(f"w must have shape ({self.n_stats},), got {w.shape}")
        # einsum rather than BLAS: threaded OpenBLAS is erratic for these sizes on small machines
        e = np.einsum("ij,j->i", self._A, w)
        if self._log_mult is not None:
            e += self._log_mult
        e -= e.max()
        np.exp(e, out=e)
        return np.divide(e, e.sum(), out=e)

    def marginals(self, w: np.ndarray) -> np.ndarray:
        """``E[s]`` under natural parameters ``w``: per edge ``P(x_u = x_v)``, or per group the
        expected number of its edges that agree."""
        return np.einsum("i,ij->j", self._probabilities(w), self._A)

    def draw_counts(self, w: np.ndarray, n: int, *, rng: np.random.Generator) -> np.ndarray:
        """Agreement counts ``sum_j s(x_j)`` of ``n`` exact iid samples (one ``rng.random(n)``).

        Rows are drawn by inverse CDF (uniforms sorted first, which makes the search cache-friendly
        and leaves the distribution of the sum unchanged).
        """
        cdf = np.cumsum(self._probabilities(w))
        u = np.sort(rng.random(int(n))) * cdf[-1]
        idx = np.minimum(np.searchsorted(cdf, u, side="right"), cdf.size - 1)
        return np.take(self._A, idx, axis=0).sum(axis=0)  # take: faster than A[idx], same rows


def _log_zhat_and_grad(graph: PairwiseGraph, w: np.ndarray) -> tuple[float, np.ndarray]:
    """``log sum_{x_0=0} exp(s(x).w)`` and its gradient ``E[s]`` by enumeration."""
    logs, means = [], []
    for _, a in _agreement_chunks(graph):
        # einsum rather than BLAS: threaded OpenBLAS is erratic for these sizes on small machines
        e = np.einsum("ij,j->i", a, w)
        lse = logsumexp(e)
        logs.append(lse)
        means.append(np.einsum("i,ij->j", np.exp(e - lse), a))
    logs_arr = np.array(logs)
    total = logsumexp(logs_arr)
    weights = np.exp(logs_arr - total)
    return float(total), np.sum(weights[:, None] * np.array(means), axis=0)


def log_partition(graph: PairwiseGraph, theta: np.ndarray) -> float:
    """Exact ``log Z(theta)``: closed form on forests, enumeration otherwise.

    Parameters
    ----------
    graph : PairwiseGraph
    theta : array_like of float, shape (E,)

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Bad ``theta``, or a graph with cycles and more than :data:`MAX_ENUMERATION_NODES` nodes.

    Examples
    --------
    >>> from bnstudy.mrf.graph import binary_tree
    >>> import numpy as np
    >>> float(round(log_partition(binary_tree(3), np.full(14, 0.3)) / np.log(2), 12))
    1.0

    References
    ----------
    .. [1] Liu & Page (2013), Eq. (1).
    """
    theta = check_theta(theta, graph.n_edges)
    if graph.is_forest:
        return float((graph.n_nodes - graph.n_edges) * np.log(2.0))
    log_zhat, _ = _log_zhat_and_grad(graph, logit(theta))
    return float(np.log(2.0) + log_zhat + np.log1p(-theta).sum())


def edge_agreement_probabilities(graph: PairwiseGraph, theta: np.ndarray) -> np.ndarray:
    """Exact ``P(x_u = x_v)`` per edge (``theta`` itself on a forest; enumeration otherwise).

    Node marginals are always ``1/2`` (the model is invariant under flipping every node).

    Returns
    -------
    numpy.ndarray of float64, shape (E,)
    """
    theta = check_theta(theta, graph.n_edges)
    if graph.is_forest:
        return theta.copy()
    return _log_zhat_and_grad(graph, logit(theta))[1]


def log_likelihood(graph: PairwiseGraph, theta: np.ndarray, X: np.ndarray) -> float:
    """Exact log-likelihood ``sum_j log P(x_j; theta)``.

    ``sum_c [S_c log theta_c + (n - S_c) log(1 - theta_c)] - n log Z(theta)`` from the agreement
    counts ``S``; ``log Z`` from :func:`log_partition`.

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
    .. [1] Liu & Page (2013), Sec. 2 (``L(theta | X)``) and Sec. 4 (test-set log-likelihood).
    """
    theta = check_theta(theta, graph.n_edges)
    X = check_samples(X, graph.n_nodes)
    S = agreement_counts(graph, X)
    n = X.shape[0]
    return float(S @ np.log(theta) + (n - S) @ np.log1p(-theta) - n * log_partition(graph, theta))


def sample_tree(
    graph: PairwiseGraph, theta: np.ndarray, n_samples: int, *, rng: np.random.Generator
) -> np.ndarray:
    """Exact samples from a forest-structured model: uniform roots, then children level by level.

    Each child copies its parent with probability ``theta_c`` and flips it otherwise; a whole
    depth level of the tree is drawn at once for all samples.

    Parameters
    ----------
    graph : PairwiseGraph
        A forest (raises ``ValueError`` otherwise).
    theta : array_like of float, shape (E,)
    n_samples : int
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int8, shape (n_samples, p)
    """
    theta = check_theta(theta, graph.n_edges)
    layout = graph.tree_layout
    X = np.empty((int(n_samples), graph.n_nodes), dtype=np.int8)
    X[:, layout.roots] = rng.integers(0, 2, size=(int(n_samples), layout.roots.size), dtype=np.int8)
    for nodes in layout.levels:
        flip = rng.random((int(n_samples), nodes.size)) >= theta[layout.parent_edge[nodes]]
        X[:, nodes] = X[:, layout.parent[nodes]] ^ flip.astype(np.int8)
    return X


def sample_enumeration(
    graph: PairwiseGraph, theta: np.ndarray, n_samples: int, *, rng: np.random.Generator
) -> np.ndarray:
    """Exact samples of a small model by inverse-CDF over the enumerated state space.

    A state of the half space is drawn by its probability, then every node is flipped with
    probability 1/2 (the model is flip-invariant).

    Parameters
    ----------
    graph : PairwiseGraph
        At most :data:`MAX_ENUMERATION_NODES` nodes.
    theta : array_like of float, shape (E,)
    n_samples : int
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int8, shape (n_samples, p)
    """
    theta = check_theta(theta, graph.n_edges)
    w = logit(theta)
    log_p = np.concatenate([np.einsum("ij,j->i", a, w) for _, a in _agreement_chunks(graph)])
    cdf = np.cumsum(np.exp(log_p - log_p.max()))
    idx = np.searchsorted(cdf, rng.random(int(n_samples)) * cdf[-1], side="right")
    idx = np.minimum(idx, cdf.size - 1)
    shifts = np.arange(graph.n_nodes - 1, dtype=np.int64)
    bits = ((idx[:, None] >> shifts[None, :]) & 1).astype(np.int8)
    X = np.concatenate([np.zeros((idx.size, 1), dtype=np.int8), bits], axis=1)
    flip = rng.integers(0, 2, size=(idx.size, 1), dtype=np.int8)
    return X ^ flip


def exact_mle(
    graph: PairwiseGraph,
    X: np.ndarray,
    *,
    groups: np.ndarray | None = None,
    eps: float = 1e-4,
) -> np.ndarray:
    """Exact (optionally tied) maximum-likelihood estimate by L-BFGS with enumerated gradients.

    The average log-likelihood in ``w = logit(theta)`` is ``s_bar . w - log Zhat(w) - log 2``,
    concave with gradient ``s_bar - E_w[s]`` (Liu & Page 2013, Sec. 2). With ``groups``, edges of a
    group share one ``w`` and the gradient sums over the group. On a forest the closed form
    ``theta = S / n`` (pooled per group) is returned directly.

    Parameters
    ----------
    graph : PairwiseGraph
        A forest, or at most :data:`MAX_ENUMERATION_NODES` nodes.
    X : array_like, shape (n, p)
        Samples over ``{0, 1}`` or ``{-1, 1}``.
    groups : array_like of int, shape (E,), optional
        Group label of each edge (ties parameters); default: every edge free.
    eps : float, optional
        Estimates are kept in ``[eps, 1 - eps]`` (an edge that always agrees has MLE 1).

    Returns
    -------
    numpy.ndarray of float64, shape (E,)
    """
    X = check_samples(X, graph.n_nodes)
    n = X.shape[0]
    if n == 0:
        raise ValueError("exact_mle needs at least one sample")
    s_bar = agreement_counts(graph, X) / n
    labels = np.arange(graph.n_edges) if groups is None else np.asarray(groups)
    if labels.shape != (graph.n_edges,):
        raise ValueError(f"groups must have shape ({graph.n_edges},), got {labels.shape}")
    _, inv = np.unique(labels, return_inverse=True)
    k = int(inv.max()) + 1 if inv.size else 0
    members = np.bincount(inv, minlength=k)
    data_g = np.bincount(inv, weights=s_bar, minlength=k)
    lo, hi = logit(eps), logit(1.0 - eps)
    if graph.is_forest:
        return np.clip(data_g / members, eps, 1.0 - eps)[inv]

    def objective(wg: np.ndarray) -> tuple[float, np.ndarray]:
        w = wg[inv]
        log_zhat, model_s = _log_zhat_and_grad(graph, w)
        value = float(s_bar @ w - log_zhat)
        grad = data_g - np.bincount(inv, weights=model_s, minlength=k)
        return -value, -grad

    w0 = logit(np.clip(data_g / members, 0.05, 0.95))
    res = optimize.minimize(
        objective, w0, jac=True, method="L-BFGS-B", bounds=[(lo, hi)] * k, options={"gtol": 1e-9}
    )
    logger.debug("exact_mle: %s after %d iterations", res.message, res.nit)
    return np.clip(1.0 / (1.0 + np.exp(-res.x)), THETA_EPS, 1 - THETA_EPS)[inv]
