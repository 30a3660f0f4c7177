"""Maximum-likelihood estimation: closed form on trees, persistent contrastive divergence (PCD).

In the natural parameters ``w = logit(theta)`` the average log-likelihood is
``s_bar . w - log Zhat(w) - log 2`` (see :mod:`bnstudy.mrf.exact`), concave, with gradient
``E_data[s] - E_w[s]`` over the agreement indicators ``s`` (Liu & Page 2013, Sec. 2). PCD (Tieleman
2008) estimates ``E_w[s]`` from persistent blocked-Gibbs chains that are advanced by a few sweeps
after every parameter update instead of being restarted.

PCD settings (the paper gives none; Liu & Page 2013 Sec. 2 only cite [29]). Defaults, chosen on the
4x4 grid against the exact MLE (:func:`bnstudy.mrf.exact.exact_mle`; see ``tests/mrf``):

* ``n_particles = 500`` persistent chains, started from the data rows, one sweep per iteration;
* ``n_iter = 1000`` gradient-ascent iterations in ``w``; learning rate
  ``learning_rate / (1 + 10 t / n_iter)`` with ``learning_rate = 1.0`` (a Robbins-Monro decay);
* the estimate is the average of the iterates over the last half of the run (Polyak-Ruppert
  averaging), which removes most of the particle noise;
* tied parameters (``groups``) use the group's *mean* gradient, so a group of 170 edges moves at
  the same speed as a single edge;
* ``w`` stays within ``logit([eps, 1 - eps])``, ``eps = 1e-3`` (an edge that always agrees in the
  data has an MLE of 1).

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Sec. 2 (gradient), Sec. 4 (grouping-blind and oracle MLE).
.. [2] T. Tieleman, "Training restricted Boltzmann machines using approximations to the likelihood
   gradient", ICML 2008 (PCD).
.. [3] B. T. Polyak and A. B. Juditsky, "Acceleration of stochastic approximation by averaging",
   *SIAM J. Control Optim.* 30(4):838-855, 1992.
"""

from __future__ import annotations

import logging

import numpy as np

from bnstudy.mrf.graph import PairwiseGraph
from bnstudy.mrf.model import agreement_counts, check_samples, check_theta, logit
from bnstudy.mrf.sampling import BlockGibbsSampler

__all__ = ["PersistentContrastiveDivergence", "oracle_mle", "pcd_mle", "tree_mle"]

logger = logging.getLogger(__name__)


def _sigmoid(w: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-w))


def _group_index(groups: np.ndarray | None, n_edges: int) -> tuple[np.ndarray, int]:
    """Map group labels to ``0 .. k-1`` (every edge its own group when ``groups`` is None)."""
    if groups is None:
        return np.arange(n_edges), n_edges
    labels = np.asarray(groups)
    if labels.shape != (n_edges,):
        raise ValueError(f"groups must have shape ({n_edges},), got {labels.shape}")
    _, inv = np.unique(labels, return_inverse=True)
    return inv.astype(np.int64), int(inv.max()) + 1 if inv.size else 0


def _check_eps(eps: float) -> float:
    """``eps`` as a float in ``(0, 0.5)``; NaN and infinities are refused."""
    value = float(eps)
    if not (np.isfinite(value) and 0.0 < value < 0.5):
        raise ValueError(f"eps must be a finite number in (0, 0.5), got {eps!r}")
    return value


def tree_mle(
    graph: PairwiseGraph,
    X: np.ndarray,
    *,
    groups: np.ndarray | None = None,
    eps: float = 1e-4,
) -> np.ndarray:
    """Closed-form MLE on a forest: the fraction of samples whose endpoints agree.

    On a forest the agreement indicators are independent ``Bernoulli(theta_c)`` (see
    :mod:`bnstudy.mrf.exact`), so ``theta_c = S_c / n``; tied edges pool their counts.

    Parameters
    ----------
    graph : PairwiseGraph
        A forest (``ValueError`` otherwise).
    X : array_like, shape (n, p)
        Samples over ``{0, 1}`` or ``{-1, 1}``.
    groups : array_like of int, shape (E,), optional
        Tie the parameters of edges with equal labels (the oracle MLE).
    eps : float, optional
        Estimates are clipped to ``[eps, 1 - eps]`` (``S_c = 0`` or ``n`` has MLE 0 or 1, outside
        the parameter space).

    Returns
    -------
    numpy.ndarray of float64, shape (E,)

    Examples
    --------
    >>> from bnstudy.mrf.graph import from_edges
    >>> tree_mle(from_edges(3, [[0, 1], [1, 2]]), [[0, 0, 1], [1, 1, 1], [1, 1, 0]]).round(4).tolist()
    [0.9999, 0.3333]

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 4.1 ("both MLE and Bayesian estimation have a closed form").
    """
    if not graph.is_forest:
        raise ValueError(f"tree_mle needs a forest; {graph.name} has a cycle (use pcd_mle)")
    eps = _check_eps(eps)
    X = check_samples(X, graph.n_nodes)
    n = X.shape[0]
    if n == 0:
        raise ValueError("tree_mle needs at least one sample")
    inv, k = _group_index(groups, graph.n_edges)
    S = agreement_counts(graph, X).astype(np.float64)
    pooled = np.bincount(inv, weights=S, minlength=k) / (n * np.bincount(inv, minlength=k))
    return np.clip(pooled[inv], eps, 1.0 - eps)


class PersistentContrastiveDivergence:
    """PCD maximum-likelihood estimator, optionally with parameters tied by a grouping.

    Parameters
    ----------
    graph : PairwiseGraph
    n_iter : int, default 1000
        Gradient-ascent iterations.
    n_particles : int, default 500
        Persistent Gibbs chains.
    learning_rate : float, default 1.0
        Initial step in ``w = logit(theta)``; decays as ``1 / (1 + 10 t / n_iter)``.
    n_sweeps : int, default 1
        Blocked-Gibbs sweeps of the particles per iteration.
    average_fraction : float, default 0.5
        The estimate averages the iterates of this final fraction of the run.
    eps : float, default 1e-3
        ``theta`` is kept in ``[eps, 1 - eps]``.
    warm_start : bool, default False
        Keep the particles of the previous :meth:`fit` (the samplers refit a tied model at every
        MCMC step, starting where the last fit left off).

    Attributes
    ----------
    theta_ : ndarray of shape (E,)
        Estimate per edge.
    group_theta_ : ndarray of shape (k,)
        Estimate per group (``k = E`` when untied).
    particles_ : ndarray of shape (p, n_particles)
        Final spin state of the persistent chains.
    n_iter_ : int
    gradient_norm_trace_ : ndarray of shape (n_iter,)
        Root-mean-square group gradient per iteration.

    Examples
    --------
    >>> import numpy as np
    >>> from bnstudy.mrf.graph import grid
    >>> from bnstudy.mrf.sampling import sample
    >>> g = grid(3, 3); rng = np.random.default_rng(0)
    >>> X = sample(g, np.full(g.n_edges, 0.7), 2000, rng=rng)
    >>> est = PersistentContrastiveDivergence(g, n_iter=300).fit(X, rng=rng)
    >>> bool(np.abs(est.theta_ - 0.7).max() < 0.1)
    True

    References
    ----------
    .. [1] Tieleman (2008); Liu & Page (2013), Sec. 2 and Algorithms 1-2 (first line).
    """

    def __init__(
        self,
        graph: PairwiseGraph,
        *,
        n_iter: int = 1000,
        n_particles: int = 500,
        learning_rate: float = 1.0,
        n_sweeps: int = 1,
        average_fraction: float = 0.5,
        eps: float = 1e-3,
        warm_start: bool = False,
    ) -> None:
        self.graph = graph
        self.n_iter = n_iter
        self.n_particles = n_particles
        self.learning_rate = learning_rate
        self.n_sweeps = n_sweeps
        self.average_fraction = average_fraction
        self.eps = eps
        self.warm_start = warm_start

    def _check_settings(self) -> None:
        """Refuse settings that would run but give NaN or meaningless estimates."""
        if self.n_iter < 1 or self.n_particles < 1:
            raise ValueError(
                f"n_iter and n_particles must be >= 1, got {self.n_iter}, {self.n_particles}"
            )
        if int(self.n_sweeps) != self.n_sweeps or self.n_sweeps < 1:
            raise ValueError(f"n_sweeps must be an integer >= 1, got {self.n_sweeps!r}")
        rate = float(self.learning_rate)
        if not (np.isfinite(rate) and rate > 0):
            raise ValueError(
                f"learning_rate must be a finite number > 0, got {self.learning_rate!r}"
            )
        fraction = float(self.average_fraction)
        if not (np.isfinite(fraction) and 0 < fraction <= 1):
            raise ValueError(
                f"average_fraction must be a finite number in (0, 1], got {self.average_fraction!r}"
            )
        _check_eps(self.eps)

    def fit(
        self,
        X: np.ndarray,
        *,
        rng: np.random.Generator,
        groups: np.ndarray | None = None,
        init: np.ndarray | None = None,
    ) -> PersistentContrastiveDivergence:
        """Run PCD on samples ``X``.

        Parameters
        ----------
        X : array_like, shape (n, p)
            Samples over ``{0, 1}`` or ``{-1, 1}``.
        rng : numpy.random.Generator
        groups : array_like of int, shape (E,), optional
            Tie edges with equal labels (one parameter per group).
        init : array_like of float, shape (E,), optional
            Starting ``theta`` (group start = mean of its members' logits). Default: the data's
            agreement frequencies (the tree MLE).

        Returns
        -------
        self
        """
        self._check_settings()
        X = check_samples(X, self.graph.n_nodes)
        n = X.shape[0]
        if n == 0:
            raise ValueError("PCD needs at least one sample")
        E = self.graph.n_edges
        inv, k = _group_index(groups, E)
        members = np.bincount(inv, minlength=k).astype(np.float64)
        s_bar = agreement_counts(self.graph, X) / n
        data_g = np.bincount(inv, weights=s_bar, minlength=k) / members
        lo, hi = logit(self.eps), logit(1.0 - self.eps)
        if init is None:
            w0 = logit(np.clip(s_bar, 0.02, 0.98))
        else:
            w0 = logit(np.clip(check_theta(init, E, name="init"), self.eps, 1 - self.eps))
        wg = np.clip(np.bincount(inv, weights=w0, minlength=k) / members, lo, hi)

        kernel = getattr(self, "_kernel", None)
        if kernel is None or kernel.graph is not self.graph:
            kernel = BlockGibbsSampler(self.graph)
            self._kernel = kernel
        state = getattr(self, "particles_", None) if self.warm_start else None
        if state is None or state.shape[1] != self.n_particles:
            state = kernel.init_state(self.n_particles, rng=rng, X=X)

        n_iter = int(self.n_iter)
        start_avg = n_iter - max(1, int(round(self.average_fraction * n_iter)))
        avg = np.zeros(k)
        trace = np.empty(n_iter)
        chains = kernel.chains(state)  # between sweeps only the counts are needed
        for t in range(n_iter):
            kernel.set_weights(wg[inv])
            chains.sweep(rng=rng, n_sweeps=self.n_sweeps)
            model_s = chains.agreement_counts() / self.n_particles
            # mean gradient per group: E_data[s] - E_model[s] averaged over its members
            grad = data_g - np.bincount(inv, weights=model_s, minlength=k) / members
            trace[t] = np.sqrt(np.mean(grad**2))
            lr = self.learning_rate / (1.0 + 10.0 * t / n_iter)
            wg = np.clip(wg + lr * grad, lo, hi)
            if t >= start_avg:
                avg += wg
        wg_avg = avg / (n_iter - start_avg)
        self.group_theta_ = _sigmoid(wg_avg)
        self.theta_ = self.group_theta_[inv]
        self.particles_ = chains.state()
        self.n_iter_ = n_iter
        self.gradient_norm_trace_ = trace
        logger.debug(
            "PCD on %s: %d groups, %d iterations, final rms gradient %.4f",
            self.graph.name,
            k,
            n_iter,
            trace[-1],
        )
        return self


def pcd_mle(
    graph: PairwiseGraph,
    X: np.ndarray,
    *,
    rng: np.random.Generator,
    groups: np.ndarray | None = None,
    init: np.ndarray | None = None,
    **params: float,
) -> np.ndarray:
    """Grouping-blind (or tied) MLE by PCD; a functional wrapper of :class:`PersistentContrastiveDivergence`.

    Parameters
    ----------
    graph : PairwiseGraph
    X : array_like, shape (n, p)
    rng : numpy.random.Generator
    groups : array_like of int, shape (E,), optional
    init : array_like of float, shape (E,), optional
    **params
        Hyperparameters of :class:`PersistentContrastiveDivergence` (``n_iter``, ``n_particles``,
        ``learning_rate``, ...).

    Returns
    -------
    numpy.ndarray of float64, shape (E,)

    References
    ----------
    .. [1] Tieleman (2008); Liu & Page (2013), Sec. 4.2 ("grouping-blind MLE (the PCD algorithm)").
    """
    est = PersistentContrastiveDivergence(graph, **params)
    return est.fit(X, rng=rng, groups=groups, init=init).theta_


def oracle_mle(
    graph: PairwiseGraph,
    X: np.ndarray,
    groups: np.ndarray,
    *,
    rng: np.random.Generator | None = None,
    **params: float,
) -> np.ndarray:
    """The oracle MLE: parameters tied by the true grouping.

    Closed form on forests (:func:`tree_mle` with ``groups``), tied PCD otherwise.

    Parameters
    ----------
    graph : PairwiseGraph
    X : array_like, shape (n, p)
    groups : array_like of int, shape (E,)
        The true group of each edge.
    rng : numpy.random.Generator, optional
        Required for PCD (graphs with cycles).
    **params
        PCD hyperparameters.

    Returns
    -------
    numpy.ndarray of float64, shape (E,)

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 4 ("the oracle estimator ... ties the parameters from the same
       group and estimates them via MLE"), Sec. 4.2 ("the PCD algorithm with the parameters from
       same group tied").
    """
    if graph.is_forest:
        # the PCD settings are not used on a forest, but a bad one is still a bad call
        PersistentContrastiveDivergence(graph, **params)._check_settings()
        return tree_mle(graph, X, groups=groups)
    if rng is None:
        raise ValueError("oracle_mle on a graph with cycles runs PCD and needs rng")
    return pcd_mle(graph, X, rng=rng, groups=groups, **params)
