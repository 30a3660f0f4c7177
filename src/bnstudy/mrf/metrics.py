"""Evaluation metrics of Liu & Page (2013), Sec. 4: estimate error and grouping recovery.

* :func:`mean_absolute_error`: ``(1/r) sum_i |theta_i - theta_hat_i|``.
* :func:`variation_of_information`: ``VI(C1, C2) = H(C1 | C2) + H(C2 | C1)`` (Meila 2003), in nats.
* :func:`vi_difference`: ``VI(C_bar, C) - VI(C_hat, C)`` averaged over the MCMC steps, where
  ``C_hat`` is the sampled grouping of a step and ``C_bar`` a random grouping with the same number
  of groups (a larger value means a more informative grouping).

References
----------
.. [1] J. Liu and D. Page, NIPS 2013, Sec. 4 (the three measures).
.. [2] M. Meila, "Comparing clusterings by the variation of information", COLT 2003.
"""

from __future__ import annotations

import logging

import numpy as np

__all__ = [
    "mean_absolute_error",
    "random_grouping",
    "variation_of_information",
    "vi_difference",
]

logger = logging.getLogger(__name__)


def mean_absolute_error(theta_true: np.ndarray, theta_hat: np.ndarray) -> float:
    """Average absolute error of an estimate, ``mean_i |theta_i - theta_hat_i|``.

    Raises
    ------
    ValueError
        If the shapes differ.

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 4 (first measure).
    """
    a, b = np.asarray(theta_true, dtype=float), np.asarray(theta_hat, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} vs {b.shape}")
    return float(np.mean(np.abs(a - b)))


def _labels(g: np.ndarray) -> np.ndarray:
    return np.unique(np.asarray(g).ravel(), return_inverse=True)[1]


def variation_of_information(g1: np.ndarray, g2: np.ndarray) -> float:
    """Variation of information between two groupings of the same items (nats).

    ``VI = H(g1) + H(g2) - 2 I(g1; g2)``; 0 iff the groupings are equal up to relabelling;
    symmetric.

    Parameters
    ----------
    g1, g2 : array_like of hashable labels, shape (r,)

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the two groupings have different lengths or are empty.

    Examples
    --------
    >>> variation_of_information([0, 0, 1, 1], [5, 5, 3, 3])
    0.0
    >>> round(variation_of_information([0, 0, 1, 1], [0, 1, 0, 1]), 6)
    1.386294

    References
    ----------
    .. [1] Meila (2003), Eq. (1) ff.
    """
    a, b = _labels(g1), _labels(g2)
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"groupings must be non-empty and of equal length, got {a.size}, {b.size}")
    r = a.size
    kb = int(b.max()) + 1
    joint = np.bincount(a * kb + b).astype(np.float64) / r
    joint = joint[joint > 0]
    pa = np.bincount(a) / r
    pb = np.bincount(b) / r
    h_joint = -np.sum(joint * np.log(joint))
    h_a = -np.sum(pa * np.log(pa))
    h_b = -np.sum(pb * np.log(pb))
    vi = 2.0 * h_joint - h_a - h_b  # = H(a | b) + H(b | a)
    # round-off: equal groupings (up to labels) give exactly 0
    return float(vi) if vi > 1e-12 else 0.0


def random_grouping(n_items: int, n_groups: int, *, rng: np.random.Generator) -> np.ndarray:
    """A random grouping of ``n_items`` into exactly ``n_groups`` non-empty groups.

    ``n_groups`` items chosen at random seed one group each; every other item joins a group chosen
    uniformly.

    Returns
    -------
    numpy.ndarray of int64, shape (n_items,)
    """
    if not 1 <= n_groups <= n_items:
        raise ValueError(f"need 1 <= n_groups <= n_items, got {n_groups}, {n_items}")
    labels = rng.integers(0, n_groups, size=n_items)
    labels[rng.permutation(n_items)[:n_groups]] = np.arange(n_groups)
    return labels


def vi_difference(groupings: np.ndarray, truth: np.ndarray, *, rng: np.random.Generator) -> float:
    """The paper's VI difference, averaged over MCMC steps.

    For each step ``t``: ``VI(C_bar_t, C) - VI(C_hat_t, C)`` with ``C_hat_t = groupings[t]``,
    ``C = truth`` and ``C_bar_t`` a :func:`random_grouping` with as many groups as ``C_hat_t``.

    Parameters
    ----------
    groupings : array_like of int, shape (T, r) or (r,)
        The sampled groupings (pass ``result.groupings[burn_in:]`` to drop burn-in).
    truth : array_like of int, shape (r,)
    rng : numpy.random.Generator
        Draws the random groupings.

    Returns
    -------
    float

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 4 ("we evaluate C_hat via the VI difference, namely
       VI(C_bar, C) - VI(C_hat, C) ... we average the VI difference yielded in each of the T
       steps").
    """
    gs = np.atleast_2d(np.asarray(groupings))
    truth = np.asarray(truth)
    if gs.shape[1] != truth.size:
        raise ValueError(f"groupings have {gs.shape[1]} items, truth has {truth.size}")
    diffs = np.empty(gs.shape[0])
    for t, g in enumerate(gs):
        k = np.unique(g).size
        rand = random_grouping(truth.size, k, rng=rng)
        diffs[t] = variation_of_information(rand, truth) - variation_of_information(g, truth)
    return float(diffs.mean())
