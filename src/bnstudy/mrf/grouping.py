"""Dirichlet-process grouping of MRF parameters: the samplers of Liu & Page (2013).

Generating model (Sec. 3, Eq. 3): ``G ~ DP(alpha0, G0)``, ``theta_i | G ~ G`` (``i = 1 .. r``
edges), ``x_j | theta ~ P(x; theta)``, with ``G0 = Unif(0, 1)`` and ``alpha0 = 1``. The Markov
chain state is ``(c, phi)``: ``c_i`` is the group of edge ``i`` and ``phi_k`` the value of group
``k``, so ``theta_i = phi_{c_i}``. Every sampler starts from K-means on the grouping-blind MLE with
``K = floor(alpha0 ln r)`` (Algorithms 1-2, line 2) and returns a :class:`GroupingResult`.

Samplers
--------
:func:`dp_gibbs_tree`
    Trees: the likelihood factorises into ``Bernoulli(theta_i)`` terms of the edge agreement
    indicators, so ``phi`` can be integrated out against its uniform prior (Beta-Binomial) and the
    collapsed CRP Gibbs sampler (Neal 2000, Algorithm 3) is exact (Sec. 4.1).
:func:`gibbs_exactl`
    Small graphs: Neal's Algorithm 8 with the exact likelihood. Enumerating the ``2^(p-1)``
    half-space states once gives, for edge ``i``, ``Zhat(w) = Z0_i + exp(w_i) Z1_i``, so the exact
    likelihood of every candidate value of ``theta_i`` costs O(1) after one pass over the states;
    ``phi | c`` is drawn group by group by slice sampling the exact 1-D conditional
    (``Zhat`` is a polynomial in ``exp(w_k)`` whose coefficients come from one ``bincount``).
:func:`mh_auxvar`
    Algorithm 1: ``M`` proposals per edge from the conditional prior, accepted with the auxiliary
    variable ratio of Sec. 3.1.1; ``phi | c`` by ``S`` auxiliary-variable MH steps with Gaussian
    proposals ``N(phi, sigma_Q^2 I)`` started at the tied PCD estimate (Sec. 3.1.2).
:func:`gibbs_sba`
    Algorithm 2: Eq. (4) with the stripped Beta approximation ``L(theta_i) ~
    theta_i^{k_i} (1 - theta_i)^{n - k_i}``, ``k_i = floor(n theta~_i)`` (Sec. 3.2.1), which is
    conjugate to ``G0``; ``phi_k | c ~ Beta(floor(m_k n phi^_k) + 1, m_k n - floor(m_k n phi^_k) + 1)``
    with ``phi^`` from PCD under the current grouping (Sec. 3.2.2).

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Sec. 3, Eqs. (3)-(5), Algorithms 1 and 2, Sec. 4.
.. [2] R. M. Neal, "Markov chain sampling methods for Dirichlet process mixture models", *JCGS*
   9(2):249-265, 2000 (Algorithms 2, 3, 5 and 8).
.. [3] J. Møller, A. N. Pettitt, R. Reeves and K. K. Berthelsen, "An efficient Markov chain Monte
   Carlo method for distributions with intractable normalising constants", *Biometrika*
   93(2):451-458, 2006.
.. [4] I. Murray, Z. Ghahramani and D. J. C. MacKay, "MCMC for doubly-intractable distributions",
   UAI 2006.
.. [5] R. M. Neal, "Slice sampling", *Annals of Statistics* 31(3):705-767, 2003.
.. [6] T. Tieleman, ICML 2008 (PCD).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import betaln

from bnstudy.mrf.exact import EnumeratedAgreements, enumerate_agreements
from bnstudy.mrf.graph import PairwiseGraph
from bnstudy.mrf.mle import PersistentContrastiveDivergence
from bnstudy.mrf.model import THETA_EPS, agreement_counts, check_samples, check_theta, logit
from bnstudy.mrf.sampling import BlockGibbsSampler

__all__ = [
    "GroupingResult",
    "canonical_labels",
    "dp_blocked_gibbs_tree",
    "dp_gibbs_tree",
    "draw_grouped_parameters",
    "gibbs_exactl",
    "gibbs_sba",
    "initial_grouping",
    "kmeans_1d",
    "mh_auxvar",
]

logger = logging.getLogger(__name__)

_LOGIT_LO, _LOGIT_HI = float(logit(THETA_EPS)), float(logit(1 - THETA_EPS))
#: The clip of :func:`bnstudy.mrf.mle.tree_mle` (its default ``eps``).
_TREE_MLE_EPS = 1e-4


# --------------------------------------------------------------------------------------------
# results and shared helpers
# --------------------------------------------------------------------------------------------


@dataclass
class GroupingResult:
    """Output of a Dirichlet-process grouping sampler.

    Attributes
    ----------
    method : str
        ``"dp_gibbs_tree"``, ``"gibbs_exactl"``, ``"mh_auxvar"`` or ``"gibbs_sba"``.
    theta_mean : ndarray of shape (E,)
        Posterior-mean estimate: the average of ``theta_samples[burn_in:]``.
    theta_samples : ndarray of shape (n_steps, E)
        ``theta^(t)_i = phi_{c_i}`` after step ``t``.
    groupings : ndarray of int32, shape (n_steps, E)
        The grouping ``c`` after each step, relabelled by first appearance (0, 1, ...).
    n_groups : ndarray of int, shape (n_steps,)
        Number of groups after each step.
    mle : ndarray of shape (E,)
        The grouping-blind MLE used for the K-means start (and by Gibbs_SBA's approximation).
    run_time : float
        Seconds for the whole call, including the MLE when the sampler computed it.
    init_time : float
        Seconds spent on the MLE and K-means start.
    burn_in : int
    diagnostics : dict
        Sampler-specific figures (acceptance rates, PCD iterations, ...).
    """

    method: str
    theta_mean: np.ndarray
    theta_samples: np.ndarray
    groupings: np.ndarray
    n_groups: np.ndarray
    mle: np.ndarray
    run_time: float
    init_time: float
    burn_in: int
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def n_steps(self) -> int:
        """Number of MCMC steps run."""
        return int(self.groupings.shape[0])


def canonical_labels(c: np.ndarray) -> np.ndarray:
    """Relabel a grouping ``0, 1, ...`` in order of first appearance.

    Examples
    --------
    >>> canonical_labels([7, 7, 2, 9, 2]).tolist()
    [0, 0, 1, 2, 1]
    """
    c = np.asarray(c)
    _, first, inv = np.unique(c, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv]


def kmeans_1d(
    x: np.ndarray, k: int, *, rng: np.random.Generator, n_init: int = 10, max_iter: int = 300
) -> tuple[np.ndarray, np.ndarray]:
    """K-means on scalars (k-means++ seeding, Lloyd iterations, best of ``n_init``).

    In one dimension every cluster is an interval, so assignment is a ``searchsorted`` against
    the midpoints of the sorted centres.

    Parameters
    ----------
    x : array_like of float, shape (r,)
    k : int
        Number of clusters (reduced to the number of distinct values if larger).
    rng : numpy.random.Generator
    n_init, max_iter : int, optional

    Returns
    -------
    labels : ndarray of int64, shape (r,)
        Canonical labels (:func:`canonical_labels`); empty clusters are dropped.
    centres : ndarray of float, shape (k',)
        Centre of each label.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    k = max(1, min(int(k), np.unique(x).size))
    best_inertia, best_centres = np.inf, np.array([x.mean()])
    for _ in range(int(n_init)):
        centres = [x[rng.integers(x.size)]]
        for _ in range(1, k):
            d2 = np.min((x[:, None] - np.asarray(centres)[None, :]) ** 2, axis=1)
            if d2.sum() <= 0:
                break
            centres.append(x[rng.choice(x.size, p=d2 / d2.sum())])
        c = np.sort(np.asarray(centres))
        for _ in range(int(max_iter)):
            lab = np.searchsorted((c[1:] + c[:-1]) / 2.0, x)
            cnt = np.bincount(lab, minlength=c.size)
            sums = np.bincount(lab, weights=x, minlength=c.size)
            new = np.sort(np.where(cnt > 0, sums / np.maximum(cnt, 1), c))
            if np.allclose(new, c, rtol=0, atol=1e-12):
                break
            c = new
        lab = np.searchsorted((c[1:] + c[:-1]) / 2.0, x)
        inertia = float(np.sum((x - c[lab]) ** 2))
        if inertia < best_inertia:
            best_inertia, best_centres = inertia, c
    lab = np.searchsorted((best_centres[1:] + best_centres[:-1]) / 2.0, x)
    labels = canonical_labels(lab)
    centres = np.bincount(labels, weights=x) / np.bincount(labels)
    return labels, centres


def initial_grouping(
    mle: np.ndarray, alpha0: float, *, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The paper's start: K-means on the MLE with ``K = floor(alpha0 ln r)`` (at least 1).

    Returns
    -------
    labels : ndarray of int64, shape (r,)
    phi : ndarray of float, shape (K,)
        Cluster centres, kept inside ``[THETA_EPS, 1 - THETA_EPS]``.

    References
    ----------
    .. [1] Liu & Page (2013), Algorithms 1 and 2, line 2.
    """
    r = np.asarray(mle).size
    k = max(1, int(math.floor(alpha0 * math.log(r)))) if r > 1 else 1
    labels, centres = kmeans_1d(mle, k, rng=rng)
    return labels, np.clip(centres, THETA_EPS, 1 - THETA_EPS)


def draw_grouped_parameters(
    n_edges: int, n_groups: int, *, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Simulated ground truth: ``n_groups`` values from ``Unif(0, 1)``, each edge in a random group.

    Returns
    -------
    theta : ndarray of float, shape (n_edges,)
    groups : ndarray of int64, shape (n_edges,)
        The group index (``0 .. n_groups - 1``) of each edge; a group may end up empty.

    References
    ----------
    .. [1] Liu & Page (2013), Secs. 4.1-4.3 ("We first generate the true parameters for the ...
       groups from Unif(0, 1). We then randomly assign each of the ... parameters to one of the
       ... groups").
    """
    values = np.clip(rng.random(int(n_groups)), THETA_EPS, 1 - THETA_EPS)
    groups = rng.integers(0, int(n_groups), size=int(n_edges))
    return values[groups], groups


def _sample_log_weights(logw: np.ndarray, rng: np.random.Generator) -> int:
    """Index drawn with probability proportional to ``exp(logw)``."""
    p = np.exp(logw - logw.max())
    cdf = np.cumsum(p)
    return min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), p.size - 1)


class _Groups:
    """The chain state ``(c, phi)`` in reusable slots, with member counts and summed statistics.

    Empty slots keep ``counts == 0``, so ``log(counts)`` gives them zero weight in vectorised
    updates without bookkeeping of which slots are live.
    """

    def __init__(
        self, labels: np.ndarray, phi: np.ndarray, item_stat: np.ndarray | None = None
    ) -> None:
        k = int(labels.max()) + 1
        cap = max(16, 2 * k)
        self.c = np.asarray(labels, dtype=np.int64).copy()
        self.item_stat = (
            np.zeros(self.c.size) if item_stat is None else np.asarray(item_stat, float)
        )
        self.phi = np.full(cap, 0.5)
        self.phi[:k] = phi
        self.counts = np.bincount(self.c, minlength=cap)
        self.stat = np.bincount(self.c, weights=self.item_stat, minlength=cap)
        self.free = list(range(cap - 1, k - 1, -1))

    def remove(self, i: int) -> tuple[int, bool]:
        """Take edge ``i`` out of its group; return the slot and whether it became empty."""
        g = int(self.c[i])
        self.counts[g] -= 1
        self.stat[g] -= self.item_stat[i]
        self.c[i] = -1
        emptied = self.counts[g] == 0
        if emptied:
            self.stat[g] = 0.0
            self.free.append(g)
        return g, bool(emptied)

    def assign(self, i: int, g: int) -> None:
        self.c[i] = g
        self.counts[g] += 1
        self.stat[g] += self.item_stat[i]

    def new_slot(self, value: float) -> int:
        if not self.free:
            cap = self.phi.size
            self.phi = np.r_[self.phi, np.full(cap, 0.5)]
            self.counts = np.r_[self.counts, np.zeros(cap, dtype=self.counts.dtype)]
            self.stat = np.r_[self.stat, np.zeros(cap)]
            self.free = list(range(2 * cap - 1, cap - 1, -1))
        g = self.free.pop()
        self.phi[g] = value
        return g

    def active(self) -> np.ndarray:
        return np.flatnonzero(self.counts > 0)

    def theta(self) -> np.ndarray:
        return self.phi[self.c]


class _Recorder:
    """Stores ``theta^(t)``, the grouping and the number of groups after every step."""

    def __init__(self, n_steps: int, n_edges: int) -> None:
        self.theta = np.empty((n_steps, n_edges))
        self.groupings = np.empty((n_steps, n_edges), dtype=np.int32)
        self.n_groups = np.empty(n_steps, dtype=np.int64)

    def record(self, t: int, groups: _Groups) -> None:
        self.theta[t] = groups.theta()
        labels = canonical_labels(groups.c)
        self.groupings[t] = labels
        self.n_groups[t] = int(labels.max()) + 1

    def result(
        self,
        method: str,
        *,
        mle: np.ndarray,
        burn_in: int,
        t_start: float,
        init_time: float,
        diagnostics: dict[str, Any],
    ) -> GroupingResult:
        run_time = time.perf_counter() - t_start
        res = GroupingResult(
            method=method,
            theta_mean=self.theta[burn_in:].mean(axis=0),
            theta_samples=self.theta,
            groupings=self.groupings,
            n_groups=self.n_groups,
            mle=mle,
            run_time=run_time,
            init_time=init_time,
            burn_in=burn_in,
            diagnostics=diagnostics,
        )
        logger.info(
            "%s: %d steps in %.2f s (init %.2f s), %.1f groups on average after burn-in",
            method,
            res.n_steps,
            run_time,
            init_time,
            float(self.n_groups[burn_in:].mean()),
        )
        return res


def _check_run(n_steps: int, burn_in: int, alpha0: float) -> None:
    if int(n_steps) < 1:
        raise ValueError(f"n_steps must be >= 1, got {n_steps}")
    if not 0 <= int(burn_in) < int(n_steps):
        raise ValueError(f"burn_in must be in [0, n_steps), got {burn_in} with n_steps={n_steps}")
    if not alpha0 > 0:
        raise ValueError(f"alpha0 must be positive, got {alpha0}")


def _grouping_blind_mle(
    graph: PairwiseGraph,
    X: np.ndarray,
    mle: np.ndarray | None,
    pcd_params: Mapping[str, Any] | None,
    rng: np.random.Generator,
) -> np.ndarray:
    """The given MLE (validated), else PCD (Algorithms 1-2, line 1)."""
    if mle is not None:
        return np.clip(check_theta(mle, graph.n_edges, name="mle"), THETA_EPS, 1 - THETA_EPS)
    est = PersistentContrastiveDivergence(graph, **dict(pcd_params or {}))
    return est.fit(X, rng=rng).theta_


@dataclass
class _ChainStart:
    """What every sampler prepares before its first step (Algorithms 1-2, lines 1-2).

    Attributes
    ----------
    X : ndarray, shape (n, p)
        The validated training samples.
    n : int
    S : ndarray of float, shape (E,)
        Agreement counts of the edges.
    mle : ndarray of float, shape (E,)
        The grouping-blind MLE ``theta~``.
    labels : ndarray of int, shape (E,)
        The K-means start of the grouping.
    phi : ndarray of float, shape (K,)
        The K-means start of the group values.
    """

    X: np.ndarray
    n: int
    S: np.ndarray
    mle: np.ndarray
    labels: np.ndarray
    phi: np.ndarray

    @classmethod
    def prepare(
        cls,
        graph: PairwiseGraph,
        X: np.ndarray,
        *,
        rng: np.random.Generator,
        alpha0: float,
        mle: np.ndarray | None = None,
        pcd_params: Mapping[str, Any] | None = None,
        closed_form: bool = False,
    ) -> _ChainStart:
        """Validate ``X``, count agreements, get ``theta~`` and the K-means start.

        ``theta~`` is the closed-form tree MLE when ``closed_form``, else the given ``mle`` or
        PCD (:func:`_grouping_blind_mle`); the K-means start draws from ``rng`` after it.
        """
        X = check_samples(X, graph.n_nodes)
        if X.shape[0] == 0:
            raise ValueError("the DP samplers need at least one sample, got none")
        S = agreement_counts(graph, X).astype(np.float64)
        if closed_form:
            # tree_mle(graph, X) from the counts at hand: S / n clipped to [1e-4, 1 - 1e-4]
            if not graph.is_forest:
                raise ValueError(f"the closed-form MLE needs a forest; {graph.name} has a cycle")
            theta_mle = np.clip(S / X.shape[0], _TREE_MLE_EPS, 1.0 - _TREE_MLE_EPS)
        else:
            theta_mle = _grouping_blind_mle(graph, X, mle, pcd_params, rng)
        labels, phi = initial_grouping(theta_mle, alpha0, rng=rng)
        return cls(X, int(X.shape[0]), S, theta_mle, labels, phi)


def _step_pcd(
    graph: PairwiseGraph, pcd_params: Mapping[str, Any] | None, step_pcd_iter: int
) -> PersistentContrastiveDivergence:
    """The warm-started PCD of each step's tied refit (``n_iter`` of ``pcd_params`` left out)."""
    step_params = {k: v for k, v in dict(pcd_params or {}).items() if k != "n_iter"}
    return PersistentContrastiveDivergence(
        graph, n_iter=int(step_pcd_iter), warm_start=True, **step_params
    )


def _slice_sample(
    logf: Callable[[float], float],
    x0: float,
    *,
    rng: np.random.Generator,
    width: float = 1.0,
    lo: float = _LOGIT_LO,
    hi: float = _LOGIT_HI,
    max_steps: int = 50,
) -> float:
    """One univariate slice-sampling update with stepping out and shrinkage (Neal 2003, Fig. 3-5)."""
    y = logf(x0) + math.log(rng.random())
    left = x0 - width * rng.random()
    right = left + width
    steps = 0
    while left > lo and logf(left) > y and steps < max_steps:
        left -= width
        steps += 1
    steps = 0
    while right < hi and logf(right) > y and steps < max_steps:
        right += width
        steps += 1
    left, right = max(left, lo), min(right, hi)
    while True:
        x1 = left + (right - left) * rng.random()
        if logf(x1) > y:
            return x1
        if x1 < x0:
            left = x1
        else:
            right = x1
        if right - left < 1e-12:
            return x0


# --------------------------------------------------------------------------------------------
# exact sampler for trees
# --------------------------------------------------------------------------------------------


def dp_gibbs_tree(
    graph: PairwiseGraph,
    X: np.ndarray,
    *,
    n_steps: int = 500,
    burn_in: int = 0,
    rng: np.random.Generator,
    alpha0: float = 1.0,
) -> GroupingResult:
    """Exact collapsed Gibbs sampler for DP-grouped parameters of a tree-structured MRF.

    On a forest ``P(X; theta) = 2^{-n(p-E)} prod_i theta_i^{S_i} (1 - theta_i)^{n - S_i}``
    (:mod:`bnstudy.mrf.exact`), so with ``G0 = Unif(0, 1) = Beta(1, 1)`` a group ``k`` with
    members ``M_k`` has marginal likelihood ``B(1 + T_k, 1 + n m_k - T_k)``, ``T_k = sum_{M_k} S_i``.
    Each step reassigns every ``c_i`` from

    ``P(c_i = k | c_-i, X) ∝ n_-i,k B(1 + T_k + S_i, 1 + n m_k - T_k + n - S_i) / B(1 + T_k, 1 + n m_k - T_k)``

    and ``∝ alpha0 B(1 + S_i, 1 + n - S_i)`` for a new group (Neal 2000, Algorithm 3), then draws
    ``phi_k ~ Beta(1 + T_k, 1 + n m_k - T_k)`` to record ``theta^(t) = phi_c``.

    Parameters
    ----------
    graph : PairwiseGraph
        A forest (``ValueError`` otherwise).
    X : array_like, shape (n, p)
        Training samples over ``{0, 1}`` or ``{-1, 1}``.
    n_steps : int, default 500
        Gibbs steps (the paper's 500, Sec. 4.1).
    burn_in : int, default 0
        Steps left out of ``theta_mean`` (the paper averages all steps).
    rng : numpy.random.Generator
    alpha0 : float, default 1.0
        DP concentration.

    Returns
    -------
    GroupingResult

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 4.1.
    .. [2] Neal (2000), Algorithm 3.
    """
    t_start = time.perf_counter()
    _check_run(n_steps, burn_in, alpha0)
    if not graph.is_forest:
        raise ValueError(f"dp_gibbs_tree needs a forest; {graph.name} has a cycle")
    start = _ChainStart.prepare(graph, X, rng=rng, alpha0=alpha0, closed_form=True)
    n, S, mle = start.n, start.S, start.mle
    init_time = time.perf_counter() - t_start
    groups = _Groups(start.labels, start.phi, item_stat=S)
    log_new = (math.log(alpha0) + betaln(1.0 + S, 1.0 + n - S)).tolist()
    s_list = S.tolist()
    rec = _Recorder(int(n_steps), graph.n_edges)

    def _lbeta(a: float, b: float) -> float:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)

    with np.errstate(divide="ignore"):
        for t in range(int(n_steps)):
            # per-slot Beta posterior parameters (a, b), log B(a, b) and log counts, kept in step
            # with the counts by scalar updates so that each edge costs a few vector operations
            cnt = groups.counts.astype(np.float64)
            a = 1.0 + groups.stat
            b = 1.0 + n * cnt - groups.stat
            lb = betaln(a, b)
            logcnt = np.log(cnt)
            u_all = rng.random(graph.n_edges)
            for i in range(graph.n_edges):
                s_i = s_list[i]
                g, _ = groups.remove(i)
                cnt[g] -= 1.0
                a[g] -= s_i
                b[g] -= n - s_i
                lb[g] = _lbeta(a[g], b[g])
                logcnt[g] = math.log(cnt[g]) if cnt[g] > 0 else -math.inf
                # Neal (2000) Alg. 3: prior count times the group's posterior predictive of S_i
                logw = logcnt + betaln(a + s_i, b + (n - s_i)) - lb
                top = max(float(logw.max()), log_new[i])
                cdf = np.cumsum(np.exp(logw - top))
                total = float(cdf[-1]) + math.exp(log_new[i] - top)
                j = int(np.searchsorted(cdf, u_all[i] * total, side="right"))
                if j >= cdf.size:
                    j = groups.new_slot(0.5)
                    if j >= cnt.size:  # the slot arrays grew: extend the cached ones
                        extra = groups.counts.size - cnt.size
                        cnt = np.r_[cnt, np.zeros(extra)]
                        a, b = np.r_[a, np.ones(extra)], np.r_[b, np.ones(extra)]
                        lb = np.r_[lb, np.zeros(extra)]
                        logcnt = np.r_[logcnt, np.full(extra, -math.inf)]
                groups.assign(i, j)
                cnt[j] += 1.0
                a[j] += s_i
                b[j] += n - s_i
                lb[j] = _lbeta(a[j], b[j])
                logcnt[j] = math.log(cnt[j])
            live = groups.active()
            m, tot = groups.counts[live], groups.stat[live]
            groups.phi[live] = rng.beta(1.0 + tot, 1.0 + n * m - tot)
            rec.record(t, groups)
            logger.debug("dp_gibbs_tree step %d: %d groups", t, rec.n_groups[t])
    return rec.result(
        "dp_gibbs_tree",
        mle=mle,
        burn_in=int(burn_in),
        t_start=t_start,
        init_time=init_time,
        diagnostics={},
    )


def dp_blocked_gibbs_tree(
    graph: PairwiseGraph,
    X: np.ndarray | list[np.ndarray],
    *,
    n_steps: int = 500,
    burn_in: int = 0,
    rng: np.random.Generator | list[np.random.Generator],
    alpha0: float = 1.0,
    truncation: int = 64,
    keep_samples: bool = True,
) -> GroupingResult | list[GroupingResult]:
    """Blocked Gibbs sampler for DP-grouped parameters of a tree, vectorised over edges and chains.

    The same posterior as :func:`dp_gibbs_tree`, with the DP written as truncated stick-breaking
    weights ``pi`` (Ishwaran & James 2001): given ``(pi, phi)`` the groups ``c_i`` of the edges are
    independent, because the tree's likelihood factorises into ``Bernoulli(theta_i)`` terms of the
    agreement counts ``S_i`` (:mod:`bnstudy.mrf.exact`). Each step draws

    * ``c_i ~ Cat(pi_k phi_k^{S_i} (1 - phi_k)^{n - S_i})`` for every edge at once (the
      probabilities depend on ``S_i`` only, so they are tabulated for ``S = 0 .. n``);
    * ``phi_k ~ Beta(1 + T_k, 1 + n m_k - T_k)`` (``G0 = Unif(0, 1)``; empty slots from ``G0``);
    * ``v_k ~ Beta(1 + m_k, alpha0 + sum_{j > k} m_j)``, ``pi_k = v_k prod_{j < k} (1 - v_j)``,
      ``v_{K-1} = 1``;

    and records ``theta^(t) = phi_c``. The start is the paper's K-means on the MLE (its centres
    are the first values of ``phi``). With ``K = truncation`` slots the truncated prior differs from
    the DP's by at most ``4 r exp(-(K - 1) / alpha0)`` in the marginal of the data (Ishwaran &
    James 2001, Thm. 2): below ``1e-20`` for the paper's tree at the default ``K = 64``.

    Several chains (one per data set, each with its own generator) run side by side; every chain
    draws from its own generator only, in the same order whatever the other chains, so a chain's
    result does not depend on which chains it runs with.

    Parameters
    ----------
    graph : PairwiseGraph
        A forest (``ValueError`` otherwise).
    X : array_like, shape (n, p), or list of them
        Training samples of one chain, or of each chain (sizes may differ).
    n_steps : int, default 500
    burn_in : int, default 0
    rng : numpy.random.Generator, or list of them (one per chain)
    alpha0 : float, default 1.0
    truncation : int, default 64
        Number of stick-breaking slots ``K`` (at least the K-means start's groups plus one).
    keep_samples : bool, default True
        Keep ``theta_samples`` (``n_steps x E`` floats per chain); when False it is an empty
        ``(0, E)`` array and only the running posterior mean is kept.

    Returns
    -------
    GroupingResult or list of GroupingResult
        One per chain (a single result when ``X`` is one array). ``run_time`` is the batch's wall
        time divided by the number of chains; ``diagnostics["max_groups"]`` is the largest number
        of groups any step used (a chain that reaches ``truncation`` should be rerun with more).

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 4.1.
    .. [2] H. Ishwaran and L. F. James, "Gibbs sampling methods for stick-breaking priors",
       *JASA* 96(453):161-173, 2001.
    """
    t_start = time.perf_counter()
    _check_run(n_steps, burn_in, alpha0)
    if not graph.is_forest:
        raise ValueError(f"dp_blocked_gibbs_tree needs a forest; {graph.name} has a cycle")
    single = not isinstance(X, list)
    Xs = [X] if single else list(X)
    rngs = [rng] if single else list(rng)
    if len(Xs) != len(rngs) or not Xs:
        raise ValueError(f"need one generator per chain, got {len(rngs)} for {len(Xs)} chains")
    R, E, K, T = len(Xs), graph.n_edges, int(truncation), int(n_steps)
    starts = [
        _ChainStart.prepare(graph, x, rng=g, alpha0=alpha0, closed_form=True)
        for x, g in zip(Xs, rngs, strict=True)
    ]
    k0 = max(int(st.labels.max()) + 1 for st in starts)
    if K < k0 + 1:
        raise ValueError(f"truncation must exceed the {k0} groups of the K-means start, got {K}")
    n = np.array([st.n for st in starts], dtype=np.float64)
    n_max = int(n.max())
    S = np.stack([st.S for st in starts])  # (R, E)
    # edges in order of S: the queries of each step's searchsorted come nearly sorted (faster)
    by_s = np.argsort(S, axis=1, kind="stable")
    S_by_s = np.take_along_axis(S, by_s, axis=1)
    S_idx_by_s = S_by_s.astype(np.int64)
    s_grid = np.arange(n_max + 1, dtype=np.float64)  # agreement counts 0 .. n_max
    c = np.stack([st.labels for st in starts]).astype(np.int64)
    phi = np.empty((R, K))
    for r, st in enumerate(starts):
        phi[r] = np.clip(rngs[r].random(K), THETA_EPS, 1 - THETA_EPS)
        phi[r, : st.phi.size] = st.phi
    init_time = (time.perf_counter() - t_start) / R
    rows = np.arange(R)[:, None]
    row_index, edge_index = np.broadcast_to(rows, (R, E)), np.broadcast_to(np.arange(E), (R, E))
    offsets = (np.arange(R) * K)[:, None]
    kept = T - int(burn_in)
    s_col = s_grid[None, :, None]
    n_minus_s = n[:, None, None] - s_col
    cdf, term = np.empty((R, n_max + 1, K)), np.empty((R, n_max + 1, K))
    theta_sum = np.zeros((R, E))
    theta_samples = np.empty((R, T if keep_samples else 0, E))
    groupings = np.empty((R, T, E), dtype=np.int32)
    n_groups = np.empty((R, T), dtype=np.int64)
    for t in range(T):
        # pi | c: stick-breaking weights
        m = np.bincount((c + offsets).ravel(), minlength=R * K).reshape(R, K).astype(np.float64)
        tail = m[:, ::-1].cumsum(axis=1)[:, ::-1] - m  # sum_{j > k} m_j
        v = np.ones((R, K))
        for r in range(R):
            v[r, :-1] = rngs[r].beta(1.0 + m[r, :-1], alpha0 + tail[r, :-1])
        with np.errstate(divide="ignore"):
            log_v, log_1mv = np.log(v), np.log1p(-v)
        log_pi = log_v + np.concatenate([np.zeros((R, 1)), np.cumsum(log_1mv[:, :-1], axis=1)], 1)
        # c | pi, phi: the probabilities of an edge depend on its S only, tabulated for S = 0..n:
        # log pi_k + s log phi_k + (n - s) log(1 - phi_k), then its normalized CDF over k, all in
        # the two preallocated tables (the same operations in the same order as with temporaries)
        np.multiply(s_col, np.log(phi)[:, None, :], out=cdf)
        np.add(log_pi[:, None, :], cdf, out=cdf)
        np.multiply(n_minus_s, np.log1p(-phi)[:, None, :], out=term)
        cdf += term
        cdf -= cdf.max(axis=2, keepdims=True)
        np.exp(cdf, out=cdf)
        np.cumsum(cdf, axis=2, out=cdf)
        cdf /= cdf[:, :, -1:]
        cdf += s_col  # row s holds s + cdf: one sorted array per chain
        for r in range(R):
            u = rngs[r].random(E)
            pos = np.searchsorted(cdf[r].ravel(), S_by_s[r] + u[by_s[r]], side="right")
            c[r, by_s[r]] = np.minimum(pos - S_idx_by_s[r] * K, K - 1)
        # phi | c
        m = np.bincount((c + offsets).ravel(), minlength=R * K).reshape(R, K).astype(np.float64)
        tot = np.bincount((c + offsets).ravel(), weights=S.ravel(), minlength=R * K).reshape(R, K)
        for r in range(R):
            phi[r] = np.clip(
                rngs[r].beta(1.0 + tot[r], 1.0 + n[r] * m[r] - tot[r]), THETA_EPS, 1 - THETA_EPS
            )
        theta_t = phi[rows, c]
        if keep_samples:
            theta_samples[:, t] = theta_t
        if t >= int(burn_in):
            theta_sum += theta_t
        # canonical labels: slots ranked by their first edge
        # (minimum.at: numpy leaves the order of repeated assignments to one index unspecified)
        first = np.full((R, K), E, dtype=np.int64)
        np.minimum.at(first, (row_index, c), edge_index)
        rank = np.argsort(np.argsort(first, axis=1, kind="stable"), axis=1)
        groupings[:, t] = rank[rows, c]
        n_groups[:, t] = (m > 0).sum(axis=1)
    run_time = (time.perf_counter() - t_start) / R
    if int(n_groups.max()) >= K:
        logger.warning("dp_blocked_gibbs_tree used all %d slots: raise truncation", K)
    results = [
        GroupingResult(
            method="dp_blocked_gibbs_tree",
            theta_mean=theta_sum[r] / kept,
            theta_samples=theta_samples[r],
            groupings=groupings[r],
            n_groups=n_groups[r],
            mle=starts[r].mle,
            run_time=run_time,
            init_time=init_time,
            burn_in=int(burn_in),
            diagnostics={"truncation": K, "max_groups": int(n_groups[r].max())},
        )
        for r in range(R)
    ]
    logger.info(
        "dp_blocked_gibbs_tree: %d chains x %d steps in %.2f s, %.1f groups on average",
        R,
        T,
        run_time * R,
        float(n_groups[:, int(burn_in) :].mean()),
    )
    return results[0] if single else results


# --------------------------------------------------------------------------------------------
# Gibbs_ExactL
# --------------------------------------------------------------------------------------------


def _logsumexp1(v: np.ndarray) -> float:
    m = float(v.max())
    return m + math.log(float(np.exp(v - m).sum()))


def gibbs_exactl(
    graph: PairwiseGraph,
    X: np.ndarray,
    *,
    n_steps: int = 100,
    burn_in: int = 0,
    rng: np.random.Generator,
    alpha0: float = 1.0,
    n_aux: int = 3,
    n_slice: int = 3,
    mle: np.ndarray | None = None,
    pcd_params: Mapping[str, Any] | None = None,
) -> GroupingResult:
    """Gibbs sampling of the DP grouping with the exact likelihood (Gibbs_ExactL), small graphs only.

    Each step: for every edge ``i``, Neal's Algorithm 8 with ``n_aux`` auxiliary groups drawn from
    ``G0`` (the current value is one of them when ``c_i`` is a singleton), weighting each candidate
    value ``t`` by ``n_-i,k`` (or ``alpha0 / n_aux``) times the exact likelihood ``P(X; theta_i=t,
    theta_-i)`` (Eq. 4). Then every group value is redrawn from its exact conditional
    ``P(phi_k | c, phi_-k, X)`` by ``n_slice`` slice-sampling updates in ``logit(phi_k)``.

    Exact likelihoods come from one enumeration of the ``2^(p-1)`` half-space states, kept for the
    run as an agreement matrix ``A`` and the current log weights ``A @ w``: with edge ``i``'s
    contribution removed, ``Zhat(w_i = v) = Z0_i + e^v Z1_i``, so all candidates of one edge cost
    two dot products; a group's ``Zhat`` is ``sum_a C_a e^{a w_k}`` over ``a`` = number of its
    edges that agree.

    Parameters
    ----------
    graph : PairwiseGraph
        At most :data:`bnstudy.mrf.exact.MAX_ENUMERATION_NODES` nodes (the paper: "cannot be
        applied to situations when d > 20").
    X : array_like, shape (n, p)
        Training samples.
    n_steps : int, default 100
        Gibbs steps (the paper's 100, Sec. 4.2).
    burn_in : int, default 0
    rng : numpy.random.Generator
    alpha0 : float, default 1.0
    n_aux : int, default 3
        Auxiliary new-group candidates per edge update (Neal's ``m``).
    n_slice : int, default 3
        Slice-sampling updates per group value per step.
    mle : array_like of float, shape (E,), optional
        Grouping-blind MLE for the K-means start; computed by PCD (``pcd_params``) when omitted.
    pcd_params : mapping, optional
        Hyperparameters of :class:`bnstudy.mrf.mle.PersistentContrastiveDivergence`.

    Returns
    -------
    GroupingResult

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 3.2, Eq. (4) with the exact likelihood; Sec. 4.2
       ("Gibbs sampling with exact likelihood computation").
    .. [2] Neal (2000), Algorithm 8.
    .. [3] Neal (2003), slice sampling.
    """
    t_start = time.perf_counter()
    _check_run(n_steps, burn_in, alpha0)
    if int(n_aux) < 1:
        raise ValueError(f"n_aux must be >= 1, got {n_aux}")
    if int(n_slice) < 1:
        raise ValueError(f"n_slice must be >= 1, got {n_slice}")
    A = enumerate_agreements(graph)  # raises ValueError on graphs too large to enumerate
    AT = np.ascontiguousarray(A.T)  # rows = edges, for per-edge dot products
    start = _ChainStart.prepare(graph, X, rng=rng, alpha0=alpha0, mle=mle, pcd_params=pcd_params)
    n, S, theta_mle = start.n, start.S, start.mle
    init_time = time.perf_counter() - t_start
    groups = _Groups(start.labels, start.phi, item_stat=S)
    E = graph.n_edges
    log_aux_prior = math.log(alpha0 / int(n_aux))
    rec = _Recorder(int(n_steps), E)

    with np.errstate(divide="ignore"):
        for t in range(int(n_steps)):
            w = logit(groups.theta())
            # log weights of the half-space states (constant terms dropped). einsum, not BLAS:
            # threaded OpenBLAS is erratic for these vector sizes on a loaded 2-core machine
            lq = np.einsum("ij,j->i", A, w)
            for i in range(E):
                w_i = w[i]
                # floor at e^-600: subnormal floats would slow every later product ~100x
                e = np.exp(np.maximum(lq - lq.max(), -600.0))
                z_agree = float(np.einsum("i,i->", e, AT[i]))
                z0 = float(e.sum()) - z_agree
                # edge i's contribution removed: Zhat(w_i = v) = z0 + exp(v) * z1
                log_z0 = math.log(z0) if z0 > 0 else -math.inf
                log_z1 = math.log(z_agree) - w_i if z_agree > 0 else -math.inf
                g_old, emptied = groups.remove(i)
                aux = rng.random(int(n_aux))
                if emptied:
                    aux[0] = groups.phi[g_old]  # Alg. 8: the singleton's value is one candidate
                aux = np.clip(aux, THETA_EPS, 1 - THETA_EPS)
                cand = np.r_[groups.phi, aux]
                v = logit(cand)
                loglik = S[i] * v - n * np.logaddexp(log_z0, v + log_z1)
                logw = loglik + np.r_[np.log(groups.counts), np.full(aux.size, log_aux_prior)]
                j = _sample_log_weights(logw, rng)
                slot = j if j < groups.phi.size else groups.new_slot(float(cand[j]))
                groups.assign(i, slot)
                w_new = float(v[j])
                if w_new != w_i:
                    lq += AT[i] * (w_new - w_i)
                    w[i] = w_new
            # phi | c: exact 1-D conditional of each group value, by slice sampling in logit space
            for g in groups.active():
                members = np.flatnonzero(groups.c == g)
                w_g = float(logit(groups.phi[g]))
                n_agree = AT[members].sum(axis=0).astype(np.int64)
                rest = lq - n_agree * w_g
                coef = np.bincount(
                    n_agree, weights=np.exp(rest - rest.max()), minlength=members.size + 1
                )
                log_coef = np.log(coef)
                powers = np.arange(members.size + 1)
                t_k = float(S[members].sum())

                def log_post(v: float, log_coef=log_coef, powers=powers, t_k=t_k) -> float:
                    # uniform prior on phi = sigmoid(v): Jacobian log phi + log(1 - phi)
                    return (
                        t_k * v
                        - n * _logsumexp1(log_coef + powers * v)
                        - math.log1p(math.exp(-v))
                        - math.log1p(math.exp(v))
                    )

                for _ in range(int(n_slice)):
                    w_g = _slice_sample(log_post, w_g, rng=rng)
                groups.phi[g] = 1.0 / (1.0 + math.exp(-w_g))
                lq = rest + n_agree * w_g
            rec.record(t, groups)
            logger.debug("gibbs_exactl step %d: %d groups", t, rec.n_groups[t])
    return rec.result(
        "gibbs_exactl",
        mle=theta_mle,
        burn_in=int(burn_in),
        t_start=t_start,
        init_time=init_time,
        diagnostics={"n_states": int(A.shape[0]), "n_aux": int(n_aux)},
    )


# --------------------------------------------------------------------------------------------
# MH_AuxVar
# --------------------------------------------------------------------------------------------


def mh_auxvar(
    graph: PairwiseGraph,
    X: np.ndarray,
    *,
    n_steps: int = 500,
    burn_in: int = 0,
    rng: np.random.Generator,
    alpha0: float = 1.0,
    n_proposals: int = 5,
    sigma_q: float = 0.001,
    n_phi_steps: int = 100,
    particle_sweeps: int = 10,
    init_sweeps: int = 200,
    step_pcd_iter: int = 50,
    auxiliary: str = "moller",
    particles: str = "gibbs",
    mle: np.ndarray | None = None,
    pcd_params: Mapping[str, Any] | None = None,
) -> GroupingResult:
    """Metropolis-Hastings with auxiliary variables (MH_AuxVar, Algorithm 1).

    **c update** (Sec. 3.1.1). For each edge ``i``, ``n_proposals`` (``M``) times: propose ``c*_i``
    from the conditional prior (existing group ``k`` with probability ``∝ n_-i,k``, a new group with
    ``∝ alpha0`` and a value from ``G0``); propose auxiliary samples ``Z* ~ P(.; theta*)`` and accept
    with

    ``a = P~(Z*; theta~) P~(X; theta*) P~(Z; theta) / (P~(Z; theta~) P~(X; theta) P~(Z*; theta*))``

    where ``theta~`` is the grouping-blind PCD MLE and ``Z`` (``n`` samples, like ``X``) is part of
    the chain state. Because ``X``, ``Z`` and ``Z*`` have the same size, the ``prod (1 - theta)``
    factors cancel and only agreement counts enter.

    **phi | c** (Sec. 3.1.2). ``phi~`` = PCD with parameters tied by ``c`` (warm-started, with
    ``step_pcd_iter`` iterations); starting at ``phi = phi~`` with auxiliary ``Y ~ P(.; phi~)``,
    run ``n_phi_steps`` (``S``) MH steps with proposal ``N(phi, sigma_q^2 I_k)`` (rejected outside
    ``(0, 1)^k``) and auxiliary ``Y* ~ P(.; phi*)``, target of ``Y`` = ``P(.; phi~)``; keep one of
    the ``S`` states at random.

    Particles come from blocked Gibbs (the paper: "standard Gibbs sampling with long runs"): the
    proposal ``Z*`` is ``particle_sweeps`` sweeps under ``theta*`` started from the current ``Z``
    (which differs from ``theta*`` in one edge), an approximation of an exact draw that the paper
    makes too (it cannot use perfect sampling); ``Z`` itself starts from ``init_sweeps`` sweeps under
    ``theta~`` from the data. On a graph small enough to enumerate, ``particles="exact"`` draws them
    exactly instead (see ``particles``).

    ``auxiliary="exchange"`` replaces the fixed auxiliary target ``P(.; theta~)`` by the current
    state, which gives the exchange algorithm of Murray et al. (2006): ``a = P~(X; theta*)
    P~(W; theta) / (P~(X; theta) P~(W; theta*))`` with ``W ~ P(.; theta*)``, i.e.
    ``log a = (S - S_W) . (w* - w)``; likewise for ``phi``. With ``n`` auxiliary samples the
    paper's ratio (``"moller"``) compares ``P(Z; theta~)`` with ``P(Z*; theta*)`` over all ``n``
    samples, and its log has a spread of order ``n |theta~ - theta|^2``: on the 4x4 grid it
    rejects nearly every move of ``c`` (see ``diagnostics["c_acceptance"]``), which the exchange
    variant does not.

    Parameters
    ----------
    graph : PairwiseGraph
    X : array_like, shape (n, p)
        Training samples.
    n_steps : int, default 500
        MH steps ``T`` (the paper's 500, Sec. 4.2).
    burn_in : int, default 0
    rng : numpy.random.Generator
    alpha0 : float, default 1.0
    n_proposals : int, default 5
        ``M`` (the paper's 5).
    sigma_q : float, default 0.001
        ``sigma_Q`` (the paper's 0.001).
    n_phi_steps : int, default 100
        ``S`` (the paper's 100).
    particle_sweeps : int, default 10
        Gibbs sweeps per auxiliary draw (warm-started).
    init_sweeps : int, default 200
        Sweeps for the first ``Z`` and ``Y``.
    step_pcd_iter : int, default 50
        PCD iterations of each step's tied refit.
    auxiliary : {"moller", "exchange"}, default "moller"
        ``"moller"``: the paper's auxiliary-variable ratio (Møller et al. 2006) with target
        ``P(.; theta~)`` for ``Z`` and ``P(.; phi~)`` for ``Y``; ``"exchange"``: Murray et al.'s
        exchange algorithm (see above).
    particles : {"gibbs", "exact"}, default "gibbs"
        ``"gibbs"``: auxiliary samples by ``particle_sweeps`` warm-started blocked-Gibbs sweeps (the
        paper's approximation). ``"exact"``: exact, independent auxiliary samples on a graph small
        enough to enumerate (:class:`bnstudy.mrf.exact.EnumeratedAgreements`; the 4x4 grid has
        2^15 half-space states), which the paper could not use. Only their agreement counts enter
        the ratios, so a draw is ``n`` inverse-CDF draws of a state; an exchange move of ``c``,
        which changes one edge ``i``, needs only ``S_W,i ~ Binomial(n, q*_i)``, where ``q*_i`` is
        the current exact marginal ``q_i`` tilted by ``exp(w*_i - w_i)``, so it costs O(1).
    mle : array_like of float, shape (E,), optional
        ``theta~``; computed by PCD when omitted.
    pcd_params : mapping, optional
        Hyperparameters of :class:`bnstudy.mrf.mle.PersistentContrastiveDivergence` (both the
        initial and the per-step fits; ``n_iter`` applies to the initial fit only).

    Returns
    -------
    GroupingResult
        ``diagnostics``: ``c_acceptance`` (over proposals that change ``c_i``) and
        ``phi_acceptance``.

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 3.1, Algorithm 1; Sec. 4.2 (M = 5, sigma_Q = 0.001, S = 100).
    .. [2] Møller et al. (2006); Murray et al. (2006).
    .. [3] Neal (2000), Algorithm 5 (proposals from the conditional prior).
    """
    t_start = time.perf_counter()
    _check_run(n_steps, burn_in, alpha0)
    if auxiliary not in ("moller", "exchange"):
        raise ValueError(f"auxiliary must be 'moller' or 'exchange', got {auxiliary!r}")
    if particles not in ("gibbs", "exact"):
        raise ValueError(f"particles must be 'gibbs' or 'exact', got {particles!r}")
    counts = {
        "n_proposals": n_proposals,
        "n_phi_steps": n_phi_steps,
        "step_pcd_iter": step_pcd_iter,
    }
    if particles == "gibbs":
        counts |= {"particle_sweeps": particle_sweeps, "init_sweeps": init_sweeps}
    for name, value in counts.items():
        if int(value) < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    if not sigma_q > 0:
        raise ValueError(f"sigma_q must be positive, got {sigma_q}")
    exchange = auxiliary == "exchange"
    # exact: enumerate before the (costly) MLE, so that a graph too large fails at once
    enum = EnumeratedAgreements(graph) if particles == "exact" else None
    start = _ChainStart.prepare(graph, X, rng=rng, alpha0=alpha0, mle=mle, pcd_params=pcd_params)
    X, n, S, theta_mle = start.X, start.n, start.S, start.mle
    E = graph.n_edges
    w_tilde = logit(theta_mle)
    groups = _Groups(start.labels, start.phi)

    if enum is None:
        kernel = BlockGibbsSampler(graph, theta_mle)
        # auxiliary Z of the c-chain: target P(.; theta~), started from the data
        Z = kernel.sweep(kernel.init_state(n, rng=rng, X=X), rng=rng, n_sweeps=init_sweeps)
        SZ = kernel.agreement_counts(Z)
        Y = Z.copy()  # auxiliary Y of the phi-chain; its target P(.; phi~) is set each step
    else:
        # the chain state needs only the counts: SZ for the paper's ratio; the exchange move
        # needs the marginals q of each step's theta (set in the loop), as its one changed edge i
        # makes S_W,i ~ Binomial(n, q*_i), q* the tilted marginal
        SZ = enum.draw_counts(w_tilde, n, rng=rng) if not exchange else None
    step_pcd = _step_pcd(graph, pcd_params, step_pcd_iter)
    init_time = time.perf_counter() - t_start
    rec = _Recorder(int(n_steps), E)
    c_tried = c_acc = phi_tried = phi_acc = 0
    first_step = True
    log_alpha0 = math.log(alpha0)
    # the prior's log weights of the slots (log n_-i,k) and of a new group, in one buffer that
    # follows the slots' capacity; cnt holds n_-i,k
    logw, cnt = np.empty(0), np.empty(0)
    tied_key, tied = None, None  # the last grouping's tied enumeration (exact particles)

    with np.errstate(divide="ignore"):
        for t in range(int(n_steps)):
            theta = groups.theta()
            w = logit(theta)
            q = None  # the phi | c update below moves theta: marginals of this step's theta
            for i in range(E):
                for _ in range(int(n_proposals)):
                    g_old = int(groups.c[i])
                    if logw.size != groups.counts.size + 1:
                        logw = np.empty(groups.counts.size + 1)
                        cnt = np.empty(groups.counts.size)
                    np.copyto(cnt, groups.counts)
                    cnt[g_old] -= 1.0
                    np.log(cnt, out=logw[:-1])
                    logw[-1] = log_alpha0
                    j = _sample_log_weights(logw, rng)
                    if j == g_old:
                        continue  # c*_i = c_i: nothing changes
                    t_new = (
                        float(groups.phi[j])
                        if j < cnt.size
                        else float(np.clip(rng.random(), THETA_EPS, 1 - THETA_EPS))
                    )
                    w_star = w.copy()
                    w_star[i] = logit(t_new)
                    if enum is None:
                        kernel.set_weights(w_star)
                        Z_star = kernel.sweep(Z.copy(), rng=rng, n_sweeps=particle_sweeps)
                        SZ_star = kernel.agreement_counts(Z_star)
                        s_w = SZ_star[i]
                    elif exchange:
                        if q is None:
                            q = enum.marginals(w)
                        # P(.; theta*) is P(.; theta) tilted by exp((w*_i - w_i) s_i)
                        tilt = q[i] * math.exp(w_star[i] - w[i])
                        q_star = tilt / (tilt + 1.0 - q[i])
                        # the exchange ratio needs edge i's count only: SZ is not tracked
                        SZ_star, s_w = None, float(rng.binomial(n, q_star))
                    else:
                        SZ_star = enum.draw_counts(w_star, n, rng=rng)
                    # Sec. 3.1.1 ratio in agreement counts; prod(1 - theta) factors cancel
                    if exchange:
                        log_a = (S[i] - s_w) * (w_star[i] - w[i])
                    else:
                        log_a = (
                            S[i] * (w_star[i] - w[i])
                            + (SZ_star - SZ) @ w_tilde
                            + SZ @ w
                            - SZ_star @ w_star
                        )
                    c_tried += 1
                    if math.log(rng.random()) < log_a:
                        c_acc += 1
                        groups.remove(i)
                        slot = j if j < cnt.size else groups.new_slot(t_new)
                        groups.assign(i, slot)
                        w = w_star
                        q = None  # exact marginals of the new theta, computed when needed
                        # exchange: Z only warm-starts the next particles, so it follows theta
                        if enum is None:
                            Z = Z_star
                        SZ = SZ_star
            # phi | c (Sec. 3.1.2): start at the tied PCD estimate phi~
            live = groups.active()
            inv = np.searchsorted(live, groups.c)
            step_pcd.fit(X, rng=rng, groups=inv, init=groups.theta())
            phi_tilde = step_pcd.group_theta_
            if enum is None:
                w_ref = logit(phi_tilde[inv])
                kernel.set_weights(w_ref)
                Y = kernel.sweep(
                    Y, rng=rng, n_sweeps=init_sweeps if first_step else particle_sweeps
                )
                first_step = False
                SY = kernel.agreement_counts(Y)
                draw, S_phi, expand = None, S, inv
            else:
                # the phi-chain in group space: w is tied, so s . w = s_g . w_g; the grouping
                # often stays as it was (no move of c accepted), and so does its enumeration
                if inv.tobytes() != tied_key:
                    tied_key, tied = inv.tobytes(), enum.tied(inv)
                w_ref = logit(phi_tilde)
                S_phi = np.bincount(inv, weights=S, minlength=live.size)
                SY = tied.draw_counts(w_ref, n, rng=rng) if not exchange else None
                draw, expand = tied, slice(None)
            cur = phi_tilde.copy()
            w_cur = w_ref
            kept = np.empty((int(n_phi_steps), cur.size))
            for s in range(int(n_phi_steps)):
                prop = cur + sigma_q * rng.standard_normal(cur.size)
                if np.all((prop > 0.0) & (prop < 1.0)):
                    w_prop = logit(prop[expand])
                    if draw is None:
                        kernel.set_weights(w_prop)
                        Y_star = kernel.sweep(Y.copy(), rng=rng, n_sweeps=particle_sweeps)
                        SY_star = kernel.agreement_counts(Y_star)
                    else:
                        Y_star, SY_star = None, draw.draw_counts(w_prop, n, rng=rng)
                    if exchange:
                        log_a = (S_phi - SY_star) @ (w_prop - w_cur)
                    else:
                        log_a = (
                            (SY_star - SY) @ w_ref
                            + S_phi @ (w_prop - w_cur)
                            + SY @ w_cur
                            - SY_star @ w_prop
                        )
                    phi_tried += 1
                    if math.log(rng.random()) < log_a:
                        phi_acc += 1
                        cur, w_cur, Y, SY = prop, w_prop, Y_star, SY_star
                kept[s] = cur
            groups.phi[live] = np.clip(
                kept[rng.integers(int(n_phi_steps))], THETA_EPS, 1 - THETA_EPS
            )
            rec.record(t, groups)
            logger.debug("mh_auxvar step %d: %d groups", t, rec.n_groups[t])
    return rec.result(
        "mh_auxvar",
        mle=theta_mle,
        burn_in=int(burn_in),
        t_start=t_start,
        init_time=init_time,
        diagnostics={
            "auxiliary": auxiliary,
            "c_acceptance": c_acc / max(c_tried, 1),
            "c_proposals_changing": c_tried,
            "phi_acceptance": phi_acc / max(phi_tried, 1),
            "particles": particles,
        },
    )


# --------------------------------------------------------------------------------------------
# Gibbs_SBA
# --------------------------------------------------------------------------------------------


def _sba_reassign(
    groups: _Groups, k_strip: np.ndarray, log_new: np.ndarray, n: int, rng: np.random.Generator
) -> None:
    """Gibbs_SBA's c update (Sec. 3.2.1): every edge ``i`` in turn, given the others, joins slot
    ``k`` with weight ``n_k phi_k^k_i (1 - phi_k)^(n - k_i)`` or a new group with ``exp(log_new[i])``
    (its value then drawn from the stripped Beta ``Beta(k_i + 1, n - k_i + 1)``).

    ``log phi`` and ``log(1 - phi)`` change only where a slot gets a value, so they are kept until
    then; each edge's log weights are summed in one buffer in the order
    ``log n_k + k_i log phi_k + (n - k_i) log(1 - phi_k)``.
    """
    log_phi = log_1m = logw = None
    with np.errstate(divide="ignore"):  # log 0 for empty slots: weight 0
        for i in range(k_strip.size):
            groups.remove(i)
            if log_phi is None:
                log_phi = np.log(groups.phi)
                log_1m = np.log1p(-groups.phi)
                logw = np.empty(groups.phi.size + 1)  # the slots', then a new group's
            k_i = k_strip[i]
            slots = logw[:-1]
            np.log(groups.counts, out=slots)
            slots += k_i * log_phi
            slots += (n - k_i) * log_1m
            logw[-1] = log_new[i]
            j = _sample_log_weights(logw, rng)
            if j == slots.size:  # new group: value from its stripped-Beta posterior
                j = groups.new_slot(float(rng.beta(k_i + 1.0, n - k_i + 1.0)))
                log_phi = log_1m = None
            groups.assign(i, j)


def gibbs_sba(
    graph: PairwiseGraph,
    X: np.ndarray,
    *,
    n_steps: int = 100,
    burn_in: int = 0,
    rng: np.random.Generator,
    alpha0: float = 1.0,
    phi_estimate: str = "pcd",
    step_pcd_iter: int = 50,
    mle: np.ndarray | None = None,
    pcd_params: Mapping[str, Any] | None = None,
) -> GroupingResult:
    """Gibbs sampling with the stripped Beta approximation (Gibbs_SBA, Algorithm 2).

    The likelihood of ``theta_i`` with the rest fixed is approximated (Sec. 3.2.1, Eq. 5) by
    ``theta_i^{k_i} (1 - theta_i)^{n - k_i}``, ``k_i = floor(n theta~_i)``, ``theta~`` the
    grouping-blind PCD MLE. Eq. (4) then reads (Neal 2000, Algorithm 2):

    ``P(c_i = k | ...) ∝ n_-i,k phi_k^{k_i} (1 - phi_k)^{n - k_i}``, and
    ``∝ alpha0 B(k_i + 1, n - k_i + 1)`` for a new group, whose value is drawn from
    ``Beta(k_i + 1, n - k_i + 1)``.

    The paper evaluates the new-group integral by Monte Carlo over ``G0``; under the stripped Beta
    likelihood it is this Beta function exactly, which is used here. After the sweep over ``c``,
    each group value is drawn from ``Beta(floor(m_k n phi^_k) + 1, m_k n - floor(m_k n phi^_k) + 1)``
    (Sec. 3.2.2) with ``phi^`` the tied PCD estimate under the current grouping
    (``phi_estimate="pcd"``, the paper's choice: "its burden mainly from running PCD under a
    specific grouping in each Gibbs sampling step"), or with ``m_k n phi^_k = sum_{i in k} k_i``
    (``phi_estimate="pooled"``: the product of the members' stripped Betas, i.e. the exact
    conditional of the approximated model; no PCD).

    Parameters
    ----------
    graph : PairwiseGraph
    X : array_like, shape (n, p)
        Training samples.
    n_steps : int, default 100
        Gibbs steps (the paper's 100 on the grids, 3,000 on the Senate data).
    burn_in : int, default 0
    rng : numpy.random.Generator
    alpha0 : float, default 1.0
    phi_estimate : {"pcd", "pooled"}, default "pcd"
    step_pcd_iter : int, default 50
        PCD iterations of each step's tied refit (warm-started: particles and values persist).
    mle : array_like of float, shape (E,), optional
        ``theta~``; computed by PCD when omitted.
    pcd_params : mapping, optional
        Hyperparameters of :class:`bnstudy.mrf.mle.PersistentContrastiveDivergence` (both the
        initial and the per-step fits; ``n_iter`` applies to the initial fit only).

    Returns
    -------
    GroupingResult

    References
    ----------
    .. [1] Liu & Page (2013), Sec. 3.2, Eqs. (4)-(5), Algorithm 2.
    .. [2] Neal (2000), Algorithm 2.
    """
    t_start = time.perf_counter()
    _check_run(n_steps, burn_in, alpha0)
    if phi_estimate not in ("pcd", "pooled"):
        raise ValueError(f"phi_estimate must be 'pcd' or 'pooled', got {phi_estimate!r}")
    start = _ChainStart.prepare(graph, X, rng=rng, alpha0=alpha0, mle=mle, pcd_params=pcd_params)
    X, n, theta_mle = start.X, start.n, start.mle
    E = graph.n_edges
    k_strip = np.floor(n * theta_mle)  # Sec. 3.2.1: Beta(floor(n theta~) + 1, n - floor(.) + 1)
    log_new = math.log(alpha0) + betaln(k_strip + 1.0, n - k_strip + 1.0)
    groups = _Groups(start.labels, start.phi, item_stat=k_strip)
    step_pcd = _step_pcd(graph, pcd_params, step_pcd_iter)
    init_time = time.perf_counter() - t_start
    rec = _Recorder(int(n_steps), E)

    with np.errstate(divide="ignore"):
        for t in range(int(n_steps)):
            _sba_reassign(groups, k_strip, log_new, n, rng)
            # phi | c (Sec. 3.2.2)
            live = groups.active()
            m = groups.counts[live].astype(np.float64)
            if phi_estimate == "pcd":
                inv = np.searchsorted(live, groups.c)
                step_pcd.fit(X, rng=rng, groups=inv, init=groups.theta())
                a = np.floor(m * n * step_pcd.group_theta_)
            else:
                # product of the members' stripped Betas: Beta(sum k_i + 1, m n - sum k_i + 1)
                a = groups.stat[live]
            groups.phi[live] = np.clip(rng.beta(a + 1.0, m * n - a + 1.0), THETA_EPS, 1 - THETA_EPS)
            rec.record(t, groups)
            logger.debug("gibbs_sba step %d: %d groups", t, rec.n_groups[t])
    return rec.result(
        "gibbs_sba",
        mle=theta_mle,
        burn_in=int(burn_in),
        t_start=t_start,
        init_time=init_time,
        diagnostics={"phi_estimate": phi_estimate, "step_pcd_iter": int(step_pcd_iter)},
    )
