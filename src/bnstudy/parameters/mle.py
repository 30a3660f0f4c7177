"""Maximum-likelihood (and pseudo-count smoothed) CPT estimation from complete data.

Sufficient statistics of a discrete Bayesian network are the family counts
``N[X](pa, x) = #{n : pa(X)_n = pa, X_n = x}``; the (smoothed) estimate is each CPT row of
``N + alpha`` normalised over the child axis. :func:`complete_data_counts` computes all family
counts with one ``numpy.bincount`` per node over flat family indices (no loop over samples);
:func:`cpts_from_counts` turns counts (complete-data, expected or pooled over shared nodes) into
CPTs and is the M-step of :class:`bnstudy.parameters.em.ExpectationMaximization`.

References
----------
.. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009,
   Sec. 17.2.2 (MLE for Bayesian networks) and Sec. 17.3 (Dirichlet priors).
.. [2] J. M. Mooij, "libDAI: A free and open source C++ library for discrete approximate inference
   in graphical models", *JMLR* 11:2169-2173, 2010 (``CondProbEstimation``, the estimator used by
   Reed & Mengshoel's code with ``pseudo_count = 1``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np

from bnstudy.networks.bn import DiscreteBayesianNetwork
from bnstudy.stacking import ShapeGroups

__all__ = [
    "MaximumLikelihoodEstimator",
    "check_data",
    "complete_data_counts",
    "cpts_from_counts",
    "family_indices",
]

logger = logging.getLogger(__name__)


def check_data(
    bn: DiscreteBayesianNetwork,
    data: np.ndarray,
    *,
    columns: Sequence[str] | None = None,
) -> np.ndarray:
    """Validate a data matrix in ``bn.nodes`` column order and return it as ``int64``.

    Parameters
    ----------
    bn : DiscreteBayesianNetwork
    data : array_like of int, shape (n, len(bn.nodes))
        Column ``j`` holds the state index of ``bn.nodes[j]``.
    columns : sequence of str, optional
        The nodes whose values are checked against their cardinality (default: all). Other columns
        are not inspected (e.g. hidden nodes, which may hold ``-1``, or ``NaN`` in a float array).

    Returns
    -------
    numpy.ndarray of int64, shape (n, len(bn.nodes))

    Raises
    ------
    ValueError
        If ``data`` is not two-dimensional, has the wrong number of columns, or a checked column
        holds a non-integer value or one outside ``0 .. card - 1`` (the message names the node and
        the value).
    """
    arr = np.asarray(data)
    if arr.ndim != 2:
        raise ValueError(f"data must be a 2-D array (samples x nodes), got shape {arr.shape}")
    if arr.shape[1] != len(bn.nodes):
        raise ValueError(
            f"data has {arr.shape[1]} columns but network {bn.name!r} has {len(bn.nodes)} nodes "
            "(columns must follow bn.nodes)"
        )
    names = bn.nodes if columns is None else list(columns)
    if arr.dtype.kind not in "iub":
        if arr.dtype.kind != "f":
            raise ValueError(f"data must hold integer state indices, got dtype {arr.dtype}")
        for v in names:
            col = arr[:, bn.index(v)]
            bad = ~np.isfinite(col) | (col != np.round(col))
            if bad.any():
                raise ValueError(
                    f"data column of node {v!r} holds {float(col[np.argmax(bad)])}, not an integer "
                    "state index"
                )
        # the columns not checked (hidden nodes) are not read: NaN there becomes 0
        arr = np.nan_to_num(arr, nan=0.0, posinf=0.0, neginf=0.0).astype(np.int64)
    arr = arr.astype(np.int64, copy=False)
    for v in names:
        col = arr[:, bn.index(v)]
        if col.size == 0:
            continue
        card = len(bn.state_names[v])
        bad = (col < 0) | (col >= card)
        if bad.any():
            value = int(col[np.argmax(bad)])
            raise ValueError(
                f"data column of node {v!r} holds the value {value}, outside its states 0..{card - 1}"
            )
    return arr


def family_indices(bn: DiscreteBayesianNetwork, data: np.ndarray, node: str) -> np.ndarray:
    """Flat C-order index into ``bn.cpts[node]`` of every row of ``data`` (int64, shape (n,))."""
    cols = [bn.index(p) for p in bn.parents[node]] + [bn.index(node)]
    shape = bn.cpts[node].shape
    return np.ravel_multi_index(tuple(data[:, c] for c in cols), shape)


def complete_data_counts(
    bn: DiscreteBayesianNetwork,
    data: np.ndarray,
    *,
    weights: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Family counts of every node from complete data.

    Parameters
    ----------
    bn : DiscreteBayesianNetwork
        Gives the structure and the cardinalities; its CPT values are not used.
    data : array_like of int, shape (n, len(bn.nodes))
        Complete data, columns in ``bn.nodes`` order.
    weights : array_like of float, shape (n,), optional
        A weight per row (default 1).

    Returns
    -------
    dict of str to numpy.ndarray
        ``counts[X]`` has the shape of ``bn.cpts[X]`` (parents first, child last) and holds
        ``sum_n w_n [pa(X)_n = pa, X_n = x]`` as float64.

    Raises
    ------
    ValueError
        On malformed data (see :func:`check_data`) or weights of the wrong length.

    Examples
    --------
    >>> import numpy as np
    >>> from bnstudy.networks import DiscreteBayesianNetwork
    >>> bn = DiscreteBayesianNetwork(["A", "B"], {"B": ["A"]},
    ...     {"A": np.array([0.5, 0.5]), "B": np.array([[0.5, 0.5], [0.5, 0.5]])},
    ...     {"A": ["a0", "a1"], "B": ["b0", "b1"]})
    >>> complete_data_counts(bn, np.array([[0, 1], [0, 1], [1, 0]]))["B"]
    array([[0., 2.],
           [1., 0.]])
    """
    arr = check_data(bn, data)
    w = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (arr.shape[0],):
            raise ValueError(f"weights must have shape ({arr.shape[0]},), got {w.shape}")
    counts = {}
    for v in bn.nodes:
        shape = bn.cpts[v].shape
        flat = np.bincount(
            family_indices(bn, arr, v), weights=w, minlength=int(np.prod(shape))
        ).astype(np.float64)
        counts[v] = flat.reshape(shape)
    return counts


def cpts_from_counts(
    counts: Mapping[str, np.ndarray],
    pseudo_count: float = 1.0,
) -> dict[str, np.ndarray]:
    """Normalise (smoothed) counts into CPTs over the last (child) axis.

    ``theta[X](x | pa) = (N[X](pa, x) + alpha) / sum_x' (N[X](pa, x') + alpha)`` with
    ``alpha = pseudo_count``: the maximum-likelihood estimate for ``alpha = 0`` and the MAP estimate
    under a Dirichlet prior with every concentration equal to ``alpha + 1`` (equivalently, the
    posterior mean under a Dirichlet(``alpha``) prior). ``pseudo_count = 1`` is libDAI's
    ``CondProbEstimation`` default, which Reed & Mengshoel's code used (Laplace smoothing).

    Parameters
    ----------
    counts : mapping of str to numpy.ndarray
        ``counts[X]`` of shape ``(*parent cards, card(X))``, non-negative.
    pseudo_count : float, default 1.0
        Added to every entry before normalising; must be >= 0.

    Returns
    -------
    dict of str to numpy.ndarray
        The CPTs, same keys and shapes. A row with zero total (only possible when
        ``pseudo_count == 0`` and the parent configuration never occurs) is set to the uniform
        distribution (libDAI would raise on normalising a zero factor).

    Raises
    ------
    ValueError
        If ``pseudo_count`` is negative or not finite, or a count array is negative or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> cpts_from_counts({"A": np.array([3.0, 1.0])}, pseudo_count=1.0)["A"]
    array([0.66666667, 0.33333333])

    References
    ----------
    .. [1] Koller & Friedman (2009), Sec. 17.3.3 (MAP estimation with Dirichlet priors).
    """
    alpha = float(pseudo_count)
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"pseudo_count must be a finite number >= 0, got {pseudo_count!r}")
    # one NumPy call per CPT shape, not per node (the same values: see bnstudy.stacking)
    groups = ShapeGroups({v: np.shape(c) for v, c in counts.items()})
    stacked = groups.stack(counts)
    # per node: any entry negative or not finite (a NaN is not < 0; the finiteness test finds it)
    bad = groups.per_key(
        [(~np.isfinite(arr) | (arr < 0)).reshape(len(arr), -1).any(axis=1) for arr in stacked]
    )
    if bad.any():
        node = groups.keys[int(np.argmax(bad))]
        raise ValueError(f"counts of node {node!r} must be finite and non-negative")
    tables = []
    for (shape, _), arr in zip(groups.groups, stacked, strict=True):
        arr += alpha
        tot = arr.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            tables.append(np.where(tot > 0, arr / tot, 1.0 / shape[-1]))
    return groups.unstack(tables)


class MaximumLikelihoodEstimator:
    """CPTs of a known structure from complete data (smoothed maximum likelihood).

    Parameters
    ----------
    pseudo_count : float, default 1.0
        Added to every count before normalising (see :func:`cpts_from_counts`); 0 gives the
        plain maximum-likelihood estimate.

    Attributes
    ----------
    counts_ : dict of str to numpy.ndarray
        Family counts of every node.
    cpts_ : dict of str to numpy.ndarray
        The estimated CPTs, shapes as in ``bn.cpts``.

    Examples
    --------
    >>> import numpy as np
    >>> from bnstudy.networks import DiscreteBayesianNetwork
    >>> bn = DiscreteBayesianNetwork(["A"], {}, {"A": np.array([0.5, 0.5])}, {"A": ["a0", "a1"]})
    >>> MaximumLikelihoodEstimator(pseudo_count=0).fit(bn, np.array([[0], [0], [1], [0]])).cpts_["A"]
    array([0.75, 0.25])

    References
    ----------
    .. [1] Koller & Friedman (2009), Sec. 17.2.2.
    """

    def __init__(self, *, pseudo_count: float = 1.0) -> None:
        self.pseudo_count = pseudo_count

    def fit(self, bn: DiscreteBayesianNetwork, data: np.ndarray) -> MaximumLikelihoodEstimator:
        """Count the families of ``bn`` in ``data`` (columns in ``bn.nodes`` order) and normalise."""
        self.counts_ = complete_data_counts(bn, data)
        self.cpts_ = cpts_from_counts(self.counts_, self.pseudo_count)
        logger.info(
            "MLE on %r: %d samples, pseudo_count=%g",
            bn.name,
            np.asarray(data).shape[0],
            self.pseudo_count,
        )
        return self

    def to_network(self, bn: DiscreteBayesianNetwork) -> DiscreteBayesianNetwork:
        """``bn``'s structure and state names with the fitted CPTs."""
        return DiscreteBayesianNetwork(
            bn.nodes, bn.parents, self.cpts_, bn.state_names, name=bn.name
        )
