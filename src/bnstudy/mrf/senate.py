"""A Senate voting graph learned by L1-regularised logistic neighbourhood selection.

Liu & Page (2013, Sec. 5) take the MRF structure from Figure 13 of Banerjee et al. (2008): 279
edges among the 99 senators of the 109th Congress. That edge list is not public, so this module
learns a graph of about the same size from the votes: for every senator, an L1-penalised logistic
regression of their vote on all other votes (Ravikumar et al. 2010); an edge joins ``u`` and ``v``
when either regression keeps the other (OR rule); one penalty ``C`` is shared by all nodes and found
by bisection on ``log C`` so that the number of edges reaches ``target_edges``.

References
----------
.. [1] J. Liu and D. Page, NIPS 2013, Sec. 5.
.. [2] O. Banerjee, L. El Ghaoui and A. d'Aspremont, "Model selection through sparse maximum
   likelihood estimation for multivariate Gaussian or binary data", *JMLR* 9:485-516, 2008,
   Fig. 13.
.. [3] P. Ravikumar, M. J. Wainwright and J. D. Lafferty, "High-dimensional Ising model selection
   using L1-regularized logistic regression", *Annals of Statistics* 38(3):1287-1319, 2010.
.. [4] N. Meinshausen and P. Bühlmann, "High-dimensional graphs and variable selection with the
   Lasso", *Annals of Statistics* 34(3):1436-1462, 2006 (neighbourhood selection, OR rule).
"""

from __future__ import annotations

import logging
import math
import warnings

import numpy as np

from bnstudy.mrf.graph import PairwiseGraph, from_edges
from bnstudy.mrf.model import check_samples

__all__ = ["neighbourhood_selection", "neighbourhood_selection_graph"]

logger = logging.getLogger(__name__)


def neighbourhood_selection(
    X: np.ndarray, C: float, *, solver: str = "liblinear", rule: str = "or", tol: float = 1e-8
) -> np.ndarray:
    """Edges selected by per-node L1 logistic regressions at inverse penalty ``C``.

    Parameters
    ----------
    X : array_like, shape (n, p)
        Votes over ``{-1, 1}`` (or ``{0, 1}``).
    C : float
        Inverse regularisation strength of :class:`sklearn.linear_model.LogisticRegression`.
    solver : {"liblinear", "saga"}, default "liblinear"
    rule : {"or", "and"}, default "or"
        Symmetrisation: keep ``(u, v)`` if either (``or``) or both (``and``) regressions select it.
    tol : float, default 1e-8
        Coefficients with ``|beta| <= tol`` count as zero.

    Returns
    -------
    numpy.ndarray of int64, shape (E, 2)
        Edges ``u < v`` in lexicographic order.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    if rule not in ("or", "and"):
        raise ValueError(f"rule must be 'or' or 'and', got {rule!r}")
    X = check_samples(X)
    spins = 2.0 * X - 1.0  # symmetric coding, so that the penalty treats yea and nay alike
    p = X.shape[1]
    selected = np.zeros((p, p), dtype=bool)
    for j in range(p):
        y = X[:, j]
        if np.unique(y).size < 2:
            continue  # a senator who always voted the same way has no neighbours to find
        others = np.delete(np.arange(p), j)
        model = LogisticRegression(
            C=C, l1_ratio=1.0, solver=solver, max_iter=5000, tol=1e-6, random_state=0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(spins[:, others], y)
        selected[j, others] = np.abs(model.coef_[0]) > tol
    sym = (selected | selected.T) if rule == "or" else (selected & selected.T)
    u, v = np.nonzero(np.triu(sym, k=1))
    return np.c_[u, v].astype(np.int64)


def neighbourhood_selection_graph(
    X: np.ndarray,
    target_edges: int = 279,
    *,
    solver: str = "liblinear",
    rule: str = "or",
    c_bounds: tuple[float, float] = (1e-3, 10.0),
    max_iter: int = 40,
    rel_tol: float = 0.0,
) -> PairwiseGraph:
    """Learn a graph with about ``target_edges`` edges by bisection on the L1 penalty.

    The number of selected edges grows with ``C``; ``log C`` is bisected within ``c_bounds`` until
    the count is within ``rel_tol * target_edges`` of the target (exactly the target by default)
    or ``max_iter`` evaluations have run, and the graph whose count is closest to the target is
    returned.

    Parameters
    ----------
    X : array_like, shape (n, p)
        Votes over ``{-1, 1}`` (or ``{0, 1}``), e.g. ``SenateData.votes[1]``.
    target_edges : int, default 279
        The paper's edge count (Banerjee et al. 2008, Fig. 13).
    solver, rule
        See :func:`neighbourhood_selection`.
    c_bounds : (float, float), default (1e-3, 10.0)
        Bracket for ``C``.
    max_iter : int, default 40
        Maximum number of penalties tried.
    rel_tol : float, default 0.0
        Accepted relative distance from ``target_edges``.

    Returns
    -------
    PairwiseGraph
        Named ``"senate_ns(C=..., edges=...)"``; the choice is also logged at INFO.

    Raises
    ------
    ValueError
        If ``target_edges`` is not positive or the samples are malformed.

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 5 ("There are in total 279 edges").
    .. [2] Ravikumar et al. (2010); Meinshausen & Bühlmann (2006).
    """
    if int(target_edges) < 1:
        raise ValueError(f"target_edges must be positive, got {target_edges}")
    X = check_samples(X)
    target = int(target_edges)
    lo, hi = math.log(c_bounds[0]), math.log(c_bounds[1])
    best: tuple[int, float, np.ndarray] | None = None
    for it in range(int(max_iter)):
        log_c = 0.5 * (lo + hi)
        C = math.exp(log_c)
        edges = neighbourhood_selection(X, C, solver=solver, rule=rule)
        n_edges = edges.shape[0]
        logger.debug("neighbourhood selection: C=%.5g -> %d edges (iteration %d)", C, n_edges, it)
        if best is None or abs(n_edges - target) < abs(best[0] - target):
            best = (n_edges, C, edges)
        if abs(n_edges - target) <= rel_tol * target:
            break
        if n_edges < target:
            lo = log_c
        else:
            hi = log_c
    assert best is not None
    n_edges, C, edges = best
    logger.info(
        "neighbourhood selection: %d edges at C=%.5g (target %d, %d nodes)",
        n_edges,
        C,
        target,
        X.shape[1],
    )
    return from_edges(X.shape[1], edges, name=f"senate_ns(C={C:.5g}, edges={n_edges})")
