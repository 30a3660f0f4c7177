"""Edge-weight functions of ROPART and the elbow-method pruning threshold.

ROPART (Algorithm 1 of the LSBN paper, step 2) turns the complete graph on all variables into seven
weighted graphs, one per weight function, and prunes each at a truncation threshold chosen by the
elbow method on the histogram of its edge weights. All seven weight matrices are computed from a
single pass of pairwise contingency counts (:func:`bnstudy.structure.counting.pairwise_counts`):
mutual information, the entropies and the Pearson correlation of the integer codes all follow from
the ``(n_pairs, k, k)`` tables.

Weight functions (``WEIGHT_FUNCTIONS``; logs are natural, so MI is in nats):

``"MI"``
    ``I(X;Y) = H(X) + H(Y) - H(X,Y)``, plug-in (maximum-likelihood) estimate.
``"MI_plus"``
    ``I(X;Y) / (H(X) + H(Y))`` (MI normalised by the sum of entropies; in ``[0, 1/2]``).
``"MI_sqrt"``
    ``I(X;Y) / sqrt(H(X) H(Y))`` (MI normalised by the geometric mean of the entropies; in
    ``[0, 1]``).
``"MI_pr"``
    ``I(X;Y) * (2 / p) / (PR(X) + PR(Y))``, where ``PR`` is the PageRank vector (damping 0.85) of
    the complete graph weighted by MI. The paper's formula is missing from the available text; it
    says only "MI normalized by the PageRank values of X and Y", next to the entropy-normalised
    variants ``MI / (H(X) + H(Y))``. We read it the same way: divide by the sum of the two PageRank
    values, so that edges of peripheral nodes (small PageRank; the paper's "missing edges due to
    weak edge weight ... periphery nodes") are lifted relative to those of hubs. The factor
    ``2 / p`` (``p`` = number of variables; the mean of ``PR(X) + PR(Y)``) keeps the values on
    MI's scale: with uniform PageRank, ``MI_pr == MI``.
``"MI_sn"``
    ``(I(X;Y) - mu) / sigma`` with the mean and (population) standard deviation of MI over all
    ``p (p - 1) / 2`` pairs.
``"Pearson"``
    ``|rho(X, Y)|``, the absolute Pearson correlation of the state indices.
``"Pearson_sn"``
    ``(|rho| - mu) / sigma`` over all pairs.

Variables that are constant in the data (possible in a finite sample from a large network: 28 of
link's 724 variables in 20000 forward samples) have MI 0 and correlation 0 with everything; the
ratios that would be 0/0 are defined as 0.

References
----------
.. [1] LSBN: A Large-Scale Bayesian Structure Learning Framework for Model Averaging,
   Algorithm 1 (ROPART), step 2 (weight functions and truncation by the elbow method).
.. [2] L. Page, S. Brin, R. Motwani and T. Winograd, "The PageRank citation ranking: bringing
   order to the web", Stanford InfoLab technical report, 1999.
.. [3] V. Satopaa, J. Albrecht, D. Irwin and B. Raghavan, "Finding a 'kneedle' in a haystack:
   detecting knee points in system behavior", ICDCS Workshops, 2011 (the knee rule used by
   :func:`elbow_threshold`).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from scipy.special import xlogy

from bnstudy.structure.counting import check_discrete_data, marginal_counts, pairwise_counts

__all__ = [
    "WEIGHT_FUNCTIONS",
    "elbow_threshold",
    "pagerank",
    "pairwise_weights",
    "prune",
    "weight_matrices",
]

logger = logging.getLogger(__name__)

WEIGHT_FUNCTIONS: tuple[str, ...] = (
    "MI",
    "MI_plus",
    "MI_sqrt",
    "MI_pr",
    "MI_sn",
    "Pearson",
    "Pearson_sn",
)

PAGERANK_DAMPING = 0.85


def _check_methods(methods: Any) -> tuple[str, ...]:
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(methods)
    for m in methods:
        if m not in WEIGHT_FUNCTIONS:
            raise ValueError(f"unknown weight function {m!r}; known: {', '.join(WEIGHT_FUNCTIONS)}")
    return methods


def _safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with ``x / 0 := 0`` (constant variables)."""
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _standardize(values: np.ndarray, name: str) -> np.ndarray:
    """``(values - mean) / std`` over all pairs; all zeros when the std is 0 (e.g. one pair)."""
    if values.size == 0:
        return values
    sd = values.std()
    if not sd > 0:
        logger.warning("%s: all %d pair weights are equal; standardised to 0", name, values.size)
        return np.zeros_like(values)
    return (values - values.mean()) / sd


def pagerank(
    weights: np.ndarray,
    *,
    damping: float = PAGERANK_DAMPING,
    tol: float = 1e-12,
    max_iter: int = 1000,
) -> np.ndarray:
    """PageRank of a weighted undirected graph given as a dense symmetric weight matrix.

    The random surfer follows an edge with probability proportional to its weight (with
    probability ``damping``) or jumps to a uniformly random node; a node without positive
    weights (dangling) jumps uniformly. This is :func:`networkx.pagerank` with ``weight="weight"``
    and uniform personalisation, solved by power iteration in numpy.

    Parameters
    ----------
    weights : numpy.ndarray, shape (p, p)
        Non-negative weights; the diagonal is ignored.
    damping : float, default 0.85
        Probability of following an edge.
    tol : float, default 1e-12
        Stop when the L1 change of the vector is below ``tol``.
    max_iter : int, default 1000
        Maximum number of power iterations.

    Returns
    -------
    numpy.ndarray, shape (p,)
        PageRank values, summing to 1.

    References
    ----------
    .. [1] L. Page, S. Brin, R. Motwani and T. Winograd, "The PageRank citation ranking:
       bringing order to the web", Stanford InfoLab technical report, 1999.
    """
    w = np.array(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"weights must be a square matrix, got shape {w.shape}")
    if (w < 0).any():
        raise ValueError("pagerank needs non-negative weights")
    p = w.shape[0]
    np.fill_diagonal(w, 0.0)
    out_w = w.sum(axis=1)
    dangling = out_w <= 0
    trans = _safe_divide(w, out_w[:, None])  # row-stochastic where not dangling
    pr = np.full(p, 1.0 / p)
    for it in range(max_iter):
        new = damping * (pr @ trans + pr[dangling].sum() / p) + (1.0 - damping) / p
        err = np.abs(new - pr).sum()
        pr = new
        if err < tol:
            logger.debug("pagerank converged after %d iterations", it + 1)
            break
    else:
        logger.warning("pagerank did not converge in %d iterations (L1 change %.3g)", max_iter, err)
    return pr / pr.sum()


def _pair_statistics(data: Any) -> dict[str, np.ndarray]:
    """MI, entropies and |Pearson| of all pairs, from one pass of pairwise counts."""
    x, cards = check_discrete_data(data, allow_constant=True)
    n, p = x.shape
    constant = np.flatnonzero(cards == 1)
    if constant.size:
        logger.warning(
            "%d of %d variables are constant in the data (columns %s%s); their weights are 0",
            constant.size,
            p,
            ", ".join(map(str, constant[:10])),
            " ..." if constant.size > 10 else "",
        )
    iu, ju = np.triu_indices(p, k=1)
    counts = pairwise_counts(x, cards)  # (n_pairs, k, k), pairs in triu order
    marg = marginal_counts(x, cards).astype(np.float64)  # (p, k)
    # Entropies in nats; 0 log 0 = 0 through xlogy (covers the zero padding too).
    h = np.log(n) - xlogy(marg, marg).sum(axis=1) / n
    h = np.maximum(h, 0.0)
    cf = counts.astype(np.float64)
    h_joint = np.log(n) - xlogy(cf, cf).sum(axis=(1, 2)) / n
    mi = np.maximum(h[iu] + h[ju] - h_joint, 0.0)  # round-off can give -1e-17
    # Pearson correlation of the integer codes from the same tables.
    states = np.arange(counts.shape[1], dtype=np.float64)
    mean = marg @ states / n
    var = np.maximum(marg @ states**2 / n - mean**2, 0.0)
    exy = np.einsum("mab,a,b->m", cf, states, states) / n
    cov = exy - mean[iu] * mean[ju]
    rho = _safe_divide(cov, np.sqrt(var[iu] * var[ju]))
    return {
        "p": np.int64(p),
        "iu": iu,
        "ju": ju,
        "h": h,
        "mi": mi,
        "abs_rho": np.minimum(np.abs(rho), 1.0),
    }


def _to_matrix(p: int, iu: np.ndarray, ju: np.ndarray, values: np.ndarray) -> np.ndarray:
    w = np.zeros((p, p), dtype=np.float64)
    w[iu, ju] = values
    w[ju, iu] = values
    return w


def weight_matrices(data: Any, methods: Any = WEIGHT_FUNCTIONS) -> dict[str, np.ndarray]:
    """Weight matrices of several weight functions from one pass of pairwise counts.

    Parameters
    ----------
    data : array_like, shape (n_samples, n_variables)
        Integer state indices (validated by
        :func:`bnstudy.structure.counting.check_discrete_data`; constant columns are allowed and
        get weight 0 in ``MI``, ``MI_plus``, ``MI_sqrt``, ``MI_pr`` and ``Pearson``).
    methods : str or sequence of str, default WEIGHT_FUNCTIONS
        Names from ``WEIGHT_FUNCTIONS``.

    Returns
    -------
    dict of str to numpy.ndarray, shape (n_variables, n_variables)
        One symmetric matrix per method, with zero diagonal.

    Raises
    ------
    ValueError
        On an unknown method name (the message lists the known ones) or invalid data.

    References
    ----------
    .. [1] LSBN paper, Algorithm 1 (ROPART), step 2.

    Examples
    --------
    >>> x = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1]])
    >>> w = weight_matrices(x, ["MI_sqrt", "Pearson"])
    >>> float(w["MI_sqrt"][0, 1]), float(w["Pearson"][0, 2])
    (1.0, 0.0)
    """
    methods = _check_methods(methods)
    st = _pair_statistics(data)
    p, iu, ju, h, mi, r = int(st["p"]), st["iu"], st["ju"], st["h"], st["mi"], st["abs_rho"]
    out: dict[str, np.ndarray] = {}
    for m in methods:
        if m == "MI":
            vals = mi
        elif m == "MI_plus":
            vals = _safe_divide(mi, h[iu] + h[ju])
        elif m == "MI_sqrt":
            vals = np.minimum(_safe_divide(mi, np.sqrt(h[iu] * h[ju])), 1.0)
        elif m == "MI_pr":
            pr = pagerank(_to_matrix(p, iu, ju, mi))
            vals = mi * (2.0 / p) / (pr[iu] + pr[ju])
        elif m == "MI_sn":
            vals = _standardize(mi, m)
        elif m == "Pearson":
            vals = r
        else:  # "Pearson_sn"
            vals = _standardize(r, m)
        out[m] = _to_matrix(p, iu, ju, vals)
    return out


def pairwise_weights(data: Any, method: str) -> np.ndarray:
    """Weight matrix of one weight function on all variable pairs.

    Parameters
    ----------
    data : array_like, shape (n_samples, n_variables)
        Integer state indices.
    method : str
        One of ``WEIGHT_FUNCTIONS``: ``"MI"``, ``"MI_plus"``, ``"MI_sqrt"``, ``"MI_pr"``,
        ``"MI_sn"``, ``"Pearson"``, ``"Pearson_sn"`` (definitions in the module docstring).

    Returns
    -------
    numpy.ndarray, shape (n_variables, n_variables)
        Symmetric, zero diagonal. ``MI_sn`` and ``Pearson_sn`` can be negative.

    Raises
    ------
    ValueError
        On an unknown method (the message lists the known ones) or invalid data.

    See Also
    --------
    weight_matrices : several methods from one pass of counts.

    References
    ----------
    .. [1] LSBN paper, Algorithm 1 (ROPART), step 2.

    Examples
    --------
    >>> x = np.array([[0, 0], [0, 0], [1, 1], [1, 1]])
    >>> round(float(pairwise_weights(x, "MI")[0, 1]), 6)  # ln 2
    0.693147
    """
    if not isinstance(method, str):
        raise ValueError(f"method must be a string, got {method!r}")
    return weight_matrices(data, (method,))[method]


def _upper_values(weights: Any) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 2:
        if w.shape[0] != w.shape[1]:
            raise ValueError(f"weights must be a square matrix or a 1-D array, got {w.shape}")
        w = w[np.triu_indices(w.shape[0], k=1)]
    elif w.ndim != 1:
        raise ValueError(f"weights must be a square matrix or a 1-D array, got {w.shape}")
    if w.size == 0:
        raise ValueError("weights are empty: need at least one pair")
    if not np.isfinite(w).all():
        raise ValueError("weights must be finite")
    return w


def elbow_threshold(weights: Any, *, bins: int = 100) -> float:
    """Truncation threshold by the elbow method on the histogram of edge weights.

    The paper (ROPART, experiments): "we first transform all edge weights into histogram ... Then
    we look at the variance descent between each pair of adjacent bins. ... the first bin will
    add much information (encompass a lot of variance), for the majority of the edges possess
    relatively very small weights. Yet at certain bin, the variance ratio slows down. And we
    choose that bin as the truncate threshold". The rule implemented here:

    1. Histogram the weights in ``bins`` equal-width bins over ``[min, max]``; ``f_b`` is the
       share of edges in bin ``b = 1 .. B``.
    2. The cumulative share ``c_b = f_1 + ... + f_b`` is the "explained" curve: steep over the
       crowded low bins, flat over the sparse tail.
    3. The elbow is the bin ``b*`` that maximises ``c_b - b / B``, the distance of the curve
       above its chord from ``(0, 0)`` to ``(B, 1)`` (the Kneedle rule of Satopaa et al., 2011).
       For a histogram that decreases, ``b*`` is the last bin that still holds at least the
       uniform share ``1 / B`` of the edges: beyond it, each further bin adds less than the
       average bin, i.e. the descent has slowed down.
    4. The threshold is the upper edge of bin ``b*``: the crowded bins ``1 .. b*`` are cut, and
       the edges of weight at or above it are kept (:func:`prune`).

    The rule is invariant to affine maps of the weights (same bins relative to the range), so
    ``MI`` and ``MI_sn`` (and ``Pearson`` and ``Pearson_sn``) prune the same edges.

    Parameters
    ----------
    weights : array_like
        The edge weights: a 1-D array (e.g. the upper triangle), or a symmetric ``(p, p)``
        matrix, of which the upper triangle is used.
    bins : int, default 100
        Number of histogram bins (the paper does not give its bin count). At least 2.

    Returns
    -------
    float
        The threshold; equal to the maximum weight only when every weight is equal.

    Raises
    ------
    ValueError
        If ``bins < 2`` or the weights are empty or not finite.

    References
    ----------
    .. [1] LSBN paper, Algorithm 1 (ROPART), step 2, and the experiments' description of the
       elbow method ("Elbow Method [34]").
    .. [2] V. Satopaa, J. Albrecht, D. Irwin and B. Raghavan, "Finding a 'kneedle' in a
       haystack: detecting knee points in system behavior", ICDCS Workshops, 2011.

    Examples
    --------
    >>> w = np.r_[np.zeros(90), np.linspace(0.5, 1.0, 10)]
    >>> float(elbow_threshold(w, bins=10))
    0.1
    """
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2, got {bins!r}")
    w = _upper_values(weights)
    lo, hi = float(w.min()), float(w.max())
    if hi <= lo:
        logger.warning("elbow_threshold: all %d weights equal %g", w.size, hi)
        return hi
    freq, edges = np.histogram(w, bins=bins, range=(lo, hi))
    cum = np.cumsum(freq) / w.size
    gain = cum - np.arange(1, bins + 1) / bins
    b_star = int(np.argmax(gain))  # first maximum: the earliest bin where the curve flattens
    threshold = float(edges[b_star + 1])
    logger.debug(
        "elbow_threshold: bin %d of %d, threshold %.6g, keeps %d of %d edges",
        b_star + 1,
        bins,
        threshold,
        int((w >= threshold).sum()),
        w.size,
    )
    return threshold


def prune(weights: Any, threshold: float) -> np.ndarray:
    """Edges of a weighted complete graph whose weight is not below ``threshold``.

    Parameters
    ----------
    weights : array_like, shape (p, p)
        Symmetric weight matrix (the diagonal is ignored).
    threshold : float
        Truncation threshold ``T_trunc``; edges with weight ``< threshold`` are removed. Must lie
        within ``[min, max]`` of the off-diagonal weights (outside it the pruning would keep all or
        no edges, which is never what the elbow method means).

    Returns
    -------
    numpy.ndarray of int64, shape (n_edges, 2)
        The kept edges ``(i, j)``, ``i < j``, in row-major order. Their weights are
        ``weights[edges[:, 0], edges[:, 1]]``.

    Raises
    ------
    ValueError
        If ``weights`` is not square or ``threshold`` is not finite or out of range.

    References
    ----------
    .. [1] LSBN paper, Algorithm 1 (ROPART), step 2: "each weighted graph is pruned by removing
       edges whose weight is lower than some truncate threshold".

    Examples
    --------
    >>> w = np.array([[0, 0.9, 0.1], [0.9, 0, 0.5], [0.1, 0.5, 0]])
    >>> prune(w, 0.5).tolist()
    [[0, 1], [1, 2]]
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 2:
        raise ValueError(f"weights must be a square matrix with p >= 2, got shape {w.shape}")
    iu, ju = np.triu_indices(w.shape[0], k=1)
    vals = w[iu, ju]
    lo, hi = float(vals.min()), float(vals.max())
    if not np.isfinite(threshold) or not lo <= threshold <= hi:
        raise ValueError(
            f"threshold {threshold!r} is out of range: must lie within the weights' range "
            f"[{lo:.6g}, {hi:.6g}]"
        )
    keep = vals >= threshold
    return np.column_stack((iu[keep], ju[keep])).astype(np.int64)
