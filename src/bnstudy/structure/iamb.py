"""IAMB: Markov blankets by incremental association, with LSBN's candidate restriction.

For a target ``T`` and candidate set ``C`` (all other variables by default):

- **Forward (growing) phase.** Among the candidates not yet in the blanket ``CMB``, take ``Y``
  maximising the conditional mutual information ``I(Y; T | CMB)``; if ``T`` and ``Y`` are dependent
  given ``CMB`` (G² test at level ``alpha``), add ``Y`` and repeat, else stop. The association of
  every remaining candidate is one batched call (:func:`bnstudy.structure.citests.ci_tests` shares
  the ``CMB`` key across the batch); ``I = G² / (2 n)``, so the G² statistic ranks the candidates.
- **Backward (shrinking) phase.** For every ``X`` in ``CMB``, in the order of inclusion, remove
  ``X`` if ``T ⊥ X | CMB \\ {X}``.

LSBN (Algorithm 2, step 1) restricts the candidates of ``X`` to the variables whose edge weight to
``X`` is at least the mean weight of ``X``'s edges (:func:`mean_weight_candidates`).

References
----------
.. [1] Tsamardinos, I., Aliferis, C. F., & Statnikov, A. (2003). Algorithms for large scale Markov
   blanket discovery. *FLAIRS*, 376-380. Figure 2 (IAMB).
.. [2] LSBN: A Large-Scale Bayesian Structure Learning Framework for Model Averaging,
   Algorithm 2, step 1: ``MB_cand(X) = {Y : w_XY >= mean_Y w_XY}`` followed by IAMB.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from bnstudy.structure.citests import (
    CITestMethod,
    DiscreteData,
    DofRule,
    _check_options,
    _run_tests,
    as_discrete_data,
    check_alpha,
)

__all__ = ["iamb", "markov_blankets", "mean_weight_candidates"]

logger = logging.getLogger(__name__)


def mean_weight_candidates(
    weights: Any, target: int | None = None
) -> np.ndarray | list[np.ndarray]:
    """LSBN's Markov-blanket candidates: variables whose weight is at least the target's mean.

    Parameters
    ----------
    weights : array_like of float, shape (p, p)
        Symmetric edge weights (e.g. mutual information); the diagonal is ignored. Non-finite
        entries (NaN for pruned edges) are not edges: they are neither candidates nor part of the
        mean.
    target : int, optional
        One target; default: every variable.

    Returns
    -------
    numpy.ndarray of int, or list of them
        ``{Y != X : w_XY >= mean_{Y' != X} w_XY'}`` for the target (sorted), or one array per
        variable.

    References
    ----------
    .. [1] LSBN, Algorithm 2, step 1: ``MB_cand(X) = {Y | w_XY >= mean w_X}``.

    Examples
    --------
    >>> w = np.array([[0, 3, 1, 2], [3, 0, 0, 0], [1, 0, 0, 5], [2, 0, 5, 0]], dtype=float)
    >>> mean_weight_candidates(w, 0).tolist()
    [1, 3]
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"weights must be a square matrix, got shape {w.shape}")
    p = w.shape[0]

    def one(x: int) -> np.ndarray:
        row = w[x].copy()
        row[x] = np.nan
        ok = np.isfinite(row)
        if not ok.any():
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(ok & (row >= row[ok].mean()))

    if target is not None:
        if not 0 <= int(target) < p:
            raise ValueError(f"target {target} out of range for {p} variables")
        return one(int(target))
    return [one(x) for x in range(p)]


def _iamb(
    d: DiscreteData,
    target: int,
    cand: np.ndarray,
    alpha: float,
    kw: dict[str, Any],
    max_size: int | None,
) -> list[int]:
    """IAMB on prepared data; returns the blanket in the order of inclusion."""
    cmb: list[int] = []
    rest = np.asarray(cand, dtype=np.int64)
    # Forward phase: add the most associated candidate while it is dependent given CMB.
    while rest.size and (max_size is None or len(cmb) < max_size):
        zs = np.broadcast_to(np.asarray(cmb, dtype=np.int64), (rest.size, len(cmb)))
        stat, _, pv = _run_tests(d, np.full(rest.size, target), rest, zs, **kw)
        best = int(np.argmax(stat))
        if pv[best] >= alpha:
            break
        cmb.append(int(rest[best]))
        rest = np.delete(rest, best)
    # Backward phase: drop members independent of the target given the others.
    for x in list(cmb):
        others = [v for v in cmb if v != x]
        _, _, pv = _run_tests(
            d, np.array([target]), np.array([x]), np.array([others], dtype=np.int64), **kw
        )
        if pv[0] >= alpha:
            cmb.remove(x)
    return cmb


def _check_candidates(cand: Any, target: int, p: int) -> np.ndarray:
    c = np.asarray(cand)
    if c.size == 0:
        return np.zeros(0, dtype=np.int64)
    if c.ndim != 1 or c.dtype.kind not in "iu":
        raise ValueError(f"candidates must be a 1-D sequence of column indices, got {cand!r}")
    if c.min() < 0 or c.max() >= p:
        raise ValueError(f"candidate {c[(c < 0) | (c >= p)][0]} out of range for {p} columns")
    c = np.unique(c.astype(np.int64))
    return c[c != target]


def iamb(
    data: Any,
    target: int,
    *,
    alpha: float = 0.05,
    candidates: Sequence[int] | None = None,
    cards: Sequence[int] | None = None,
    max_size: int | None = None,
    method: CITestMethod = "g2",
    dof: DofRule = "adjusted",
) -> list[int]:
    """Markov blanket of one variable by IAMB.

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    target : int
        Column of the target variable.
    alpha : float, default 0.05
        Significance level of the G² tests (dependence when ``p < alpha``).
    candidates : sequence of int, optional
        Restrict the blanket to these columns (LSBN: :func:`mean_weight_candidates`); default all
        other columns.
    cards : sequence of int, optional
        Cardinalities; default ``max + 1`` per column.
    max_size : int, optional
        Stop the forward phase at this many members.
    method, dof
        The CI test (:func:`bnstudy.structure.citests.ci_test`).

    Returns
    -------
    list of int
        The Markov blanket, sorted.

    Raises
    ------
    ValueError
        On invalid data, a target or candidate out of range, or ``alpha`` outside (0, 1).

    References
    ----------
    .. [1] Tsamardinos, I., Aliferis, C. F., & Statnikov, A. (2003). Algorithms for large scale
       Markov blanket discovery. *FLAIRS*, 376-380.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 3000)
    >>> b = a ^ (rng.random(3000) < 0.1)
    >>> c = b ^ (rng.random(3000) < 0.1)          # chain a -> b -> c
    >>> iamb(np.column_stack([a, b, c]), 0)
    [1]
    """
    alpha = check_alpha(alpha)
    _check_options(method, dof)
    d = as_discrete_data(data, cards)
    p = d.n_variables
    if not 0 <= int(target) < p:
        raise ValueError(f"target {target} out of range for {p} columns")
    target = int(target)
    cand = (
        np.delete(np.arange(p), target)
        if candidates is None
        else _check_candidates(candidates, target, p)
    )
    kw = {"method": method, "dof": dof, "correction": False}
    return sorted(_iamb(d, target, cand, alpha, kw, max_size))


def markov_blankets(
    data: Any,
    *,
    alpha: float = 0.05,
    candidates: Sequence[Sequence[int]] | None = None,
    weights: Any = None,
    cards: Sequence[int] | None = None,
    max_size: int | None = None,
    method: CITestMethod = "g2",
    dof: DofRule = "adjusted",
) -> np.ndarray:
    """Markov blankets of every variable by IAMB.

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    alpha : float, default 0.05
        Significance level of the G² tests.
    candidates : sequence of sequences of int, optional
        ``candidates[x]``: the candidate blanket members of ``x``.
    weights : array_like of float, shape (p, p), optional
        Edge weights: candidates by LSBN's rule (:func:`mean_weight_candidates`). Give
        ``candidates`` or ``weights``, not both; neither means all other variables.
    cards, max_size, method, dof
        See :func:`iamb`.

    Returns
    -------
    numpy.ndarray of bool, shape (p, p)
        ``mb[x, y]`` is true when ``y`` is in the blanket found for ``x``. Not necessarily
        symmetric: ``mb & mb.T`` (or ``|``) symmetrises it.

    Raises
    ------
    ValueError
        As :func:`iamb`; also if both ``candidates`` and ``weights`` are given or their sizes do
        not match the data.

    References
    ----------
    .. [1] Tsamardinos, Aliferis & Statnikov (2003), FLAIRS, IAMB.
    .. [2] LSBN, Algorithm 2, step 1.
    """
    alpha = check_alpha(alpha)
    _check_options(method, dof)
    d = as_discrete_data(data, cards)
    p = d.n_variables
    if candidates is not None and weights is not None:
        raise ValueError("give candidates or weights, not both")
    if weights is not None:
        w = np.asarray(weights)
        if w.shape != (p, p):
            raise ValueError(f"weights must have shape {(p, p)}, got {w.shape}")
        candidates = mean_weight_candidates(w)
    if candidates is not None and len(candidates) != p:
        raise ValueError(f"candidates must list {p} sets (one per column), got {len(candidates)}")
    kw = {"method": method, "dof": dof, "correction": False}
    mb = np.zeros((p, p), dtype=bool)
    for x in range(p):
        cand = (
            np.delete(np.arange(p), x)
            if candidates is None
            else _check_candidates(candidates[x], x, p)
        )
        mb[x, _iamb(d, x, cand, alpha, kw, max_size)] = True
    logger.info("IAMB: %d variables, mean blanket size %.2f", p, mb.sum() / max(p, 1))
    return mb
