"""The experiments of Liu & Page (2013): simulated replicates, the estimators, and their metrics.

One *replicate* of a simulation (Secs. 4.1-4.3) is a graph, a ground truth drawn with
:func:`~bnstudy.mrf.grouping.draw_grouped_parameters` (group values from ``Unif(0, 1)``, each edge in
a random group), a test set and a training set. The training sets of the sample sizes ``n`` are
nested: the first ``n`` rows of one draw of ``max(n)`` samples (the paper does not say whether its
sets were nested; nesting makes the curves against ``n`` less noisy).

Estimators (the paper's names in brackets):

``mle`` [grouping-blind MLE]
    Closed form on a tree, PCD otherwise (:func:`~bnstudy.mrf.mle.pcd_mle`).
``oracle`` [oracle MLE]
    The MLE with parameters tied by the true grouping (:func:`~bnstudy.mrf.mle.oracle_mle`).
``dp_gibbs_tree`` [Bayesian, Sec. 4.1]
    The exact collapsed Gibbs sampler of trees (:func:`~bnstudy.mrf.grouping.dp_gibbs_tree`).
``gibbs_exactl``, ``mh_auxvar``, ``gibbs_sba`` [Gibbs_ExactL, MH_AuxVar, Gibbs_SBA, Sec. 4.2-4.3]
    :func:`~bnstudy.mrf.grouping.gibbs_exactl`, :func:`~bnstudy.mrf.grouping.mh_auxvar`,
    :func:`~bnstudy.mrf.grouping.gibbs_sba`, each started from the grouping-blind MLE ``theta~``
    (Algorithms 1-2, line 1), which the caller passes in so that PCD runs once per data set.

Metrics (Sec. 4): mean absolute error of ``theta``, the test log-likelihood (exact on trees and on
graphs small enough to enumerate, the log pseudo-likelihood otherwise), the VI difference of the
sampled groupings, the number of groups and the run time.

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Secs. 4 and 5.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bnstudy.mrf.exact import log_likelihood
from bnstudy.mrf.graph import PairwiseGraph, binary_tree, from_edges, grid
from bnstudy.mrf.grouping import (
    GroupingResult,
    dp_blocked_gibbs_tree,
    dp_gibbs_tree,
    draw_grouped_parameters,
    gibbs_exactl,
    gibbs_sba,
    mh_auxvar,
)
from bnstudy.mrf.metrics import mean_absolute_error, random_grouping
from bnstudy.mrf.mle import oracle_mle, pcd_mle, tree_mle
from bnstudy.mrf.model import check_samples, log_pseudo_likelihood
from bnstudy.mrf.sampling import AUTO_ENUMERATION_NODES, sample
from bnstudy.mrf.senate import neighbourhood_selection_graph
from bnstudy.utils import atomic_path, provenance, save_npz

__all__ = [
    "BAYESIAN_ESTIMATORS",
    "ESTIMATORS",
    "FROM_MLE",
    "SIMULATIONS",
    "Fit",
    "SimulatedReplicate",
    "fit_estimator",
    "heldout_log_likelihood",
    "learn_senate_graph",
    "load_graph",
    "load_replicate",
    "load_replicates",
    "load_run_arrays",
    "run_senate_fit",
    "run_simulation_block",
    "run_simulation_fit",
    "save_graph",
    "save_replicate",
    "save_replicates",
    "write_block",
    "simulate_replicate",
    "simulation_graph",
    "write_fit",
]

logger = logging.getLogger(__name__)

#: Every estimator of the paper, in the order of its figures' legends.
ESTIMATORS = ("mle", "oracle", "dp_gibbs_tree", "gibbs_exactl", "gibbs_sba", "mh_auxvar")
#: The Dirichlet-process (grouping-aware) estimators.
BAYESIAN_ESTIMATORS = ("dp_gibbs_tree", "gibbs_exactl", "gibbs_sba", "mh_auxvar")
#: Samplers that start from the grouping-blind MLE (Liu & Page 2013, Algorithms 1-2, line 1).
FROM_MLE = ("gibbs_exactl", "mh_auxvar", "gibbs_sba")
#: The simulations in the paper's order (Secs. 4.1, 4.2, 4.3).
SIMULATIONS = ("tree", "small_grid", "large_grid")
#: PCD hyperparameters of :class:`~bnstudy.mrf.mle.PersistentContrastiveDivergence` read from ``pcd``.
_PCD_KEYS = ("n_iter", "n_particles", "learning_rate")

PathLike = str | os.PathLike


def simulation_graph(*, height: int | None = None, side: int | None = None) -> PairwiseGraph:
    """The graph of a simulation: a perfect binary tree of ``height``, or a ``side x side`` grid.

    Examples
    --------
    >>> simulation_graph(height=12).n_edges, simulation_graph(side=4).n_edges
    (8190, 24)
    """
    if (height is None) == (side is None):
        raise ValueError(f"give exactly one of height and side, got height={height}, side={side}")
    return binary_tree(int(height)) if height is not None else grid(int(side), int(side))


# --------------------------------------------------------------------------------------------
# replicates
# --------------------------------------------------------------------------------------------


@dataclass
class SimulatedReplicate:
    """The ground truth and the data of one replicate.

    Attributes
    ----------
    theta : ndarray of float, shape (E,)
        True parameters.
    groups : ndarray of int, shape (E,)
        True group of each edge.
    n_groups : int
        Number of groups drawn (some may be empty).
    train : ndarray of int8, shape (n_max, p)
        Training samples; the set of size ``n`` is ``train[:n]``.
    test : ndarray of int8, shape (n_test, p)
    """

    theta: np.ndarray
    groups: np.ndarray
    n_groups: int
    train: np.ndarray
    test: np.ndarray

    def training_set(self, n: int) -> np.ndarray:
        """The first ``n`` training rows (ValueError if the replicate has fewer)."""
        if not 1 <= int(n) <= self.train.shape[0]:
            raise ValueError(
                f"training size {n} not available: the replicate holds {self.train.shape[0]} rows"
            )
        return self.train[: int(n)]


def simulate_replicate(
    graph: PairwiseGraph,
    *,
    n_groups: int,
    n_train: int,
    n_test: int,
    rng: np.random.Generator,
    gibbs_sweeps: int = 1000,
) -> SimulatedReplicate:
    """Draw a ground truth and ``n_train + n_test`` samples from it.

    Samples are exact on trees and on graphs of at most 20 nodes, and otherwise the final states of
    independent blocked-Gibbs chains run for ``gibbs_sweeps`` sweeps
    (:func:`~bnstudy.mrf.sampling.sample`; the paper does not say how it sampled the 30x30 grid).

    Parameters
    ----------
    graph : PairwiseGraph
    n_groups : int
        True number of groups (25 on the tree, 5 and 10 on the grids).
    n_train, n_test : int
        Largest training size, and the test size (1,000 in the paper).
    rng : numpy.random.Generator
    gibbs_sweeps : int, default 1000

    Returns
    -------
    SimulatedReplicate

    References
    ----------
    .. [1] Liu & Page (2013), Secs. 4.1-4.3.
    """
    if int(n_train) < 1 or int(n_test) < 1:
        raise ValueError(f"n_train and n_test must be >= 1, got {n_train}, {n_test}")
    theta, groups = draw_grouped_parameters(graph.n_edges, int(n_groups), rng=rng)
    X = sample(graph, theta, int(n_train) + int(n_test), rng=rng, n_sweeps=int(gibbs_sweeps))
    return SimulatedReplicate(theta, groups, int(n_groups), X[: int(n_train)], X[int(n_train) :])


def _replicate_fields(replicate: SimulatedReplicate) -> dict[str, np.ndarray]:
    """The arrays of a replicate as stored: samples bit-packed along each row.

    A sample row of ``p`` binary values takes ``ceil(p / 8)`` bytes (``numpy.packbits``) instead of
    ``p``: the paper's tree blocks shrink 8-fold before compression, and writing them no longer
    spends most of a simulation job deflating bytes of 0 and 1.
    """
    fields = {
        "theta": replicate.theta,
        "groups": replicate.groups,
        "n_groups": np.array(replicate.n_groups),
        "n_nodes": np.array(replicate.train.shape[1]),
    }
    for name in ("train", "test"):
        X = np.asarray(getattr(replicate, name))
        if X.dtype != np.int8 or X.ndim != 2 or X.shape[1] != replicate.train.shape[1]:
            raise ValueError(
                f"{name}: expected int8 samples with {replicate.train.shape[1]} columns, "
                f"got {X.dtype} of shape {X.shape}"
            )
        if X.size and (X.min() < 0 or X.max() > 1):
            raise ValueError(
                f"{name}: samples must be 0 or 1, got values in [{X.min()}, {X.max()}]"
            )
        fields[f"{name}_bits"] = np.packbits(X, axis=1)
    return fields


def _replicate_from(npz: Any, prefix: str = "") -> SimulatedReplicate:
    """The replicate stored under ``prefix`` (what :func:`_replicate_fields` wrote)."""
    p = int(npz[f"{prefix}n_nodes"])

    def samples(name: str) -> np.ndarray:
        return np.unpackbits(npz[f"{prefix}{name}_bits"], axis=1, count=p).view(np.int8)

    return SimulatedReplicate(
        theta=npz[f"{prefix}theta"],
        groups=npz[f"{prefix}groups"],
        n_groups=int(npz[f"{prefix}n_groups"]),
        train=samples("train"),
        test=samples("test"),
    )


def save_replicate(dest: PathLike, replicate: SimulatedReplicate, **meta: Any) -> None:
    """Write a replicate (and scalar metadata such as the seed) to one ``.npz`` atomically."""
    save_npz(dest, **_replicate_fields(replicate), **{k: np.asarray(v) for k, v in meta.items()})


def load_replicate(path: PathLike) -> SimulatedReplicate:
    """Read what :func:`save_replicate` wrote."""
    with np.load(path, allow_pickle=False) as npz:
        try:
            return _replicate_from(npz)
        except KeyError as err:
            raise ValueError(f"{path}: not a simulated replicate, missing key {err}") from None


def save_replicates(
    dest: PathLike, replicates: Mapping[int, SimulatedReplicate], seeds: Mapping[int, int]
) -> None:
    """Write the replicates of one block (and each one's seed) to one ``.npz`` atomically.

    Keys are ``rep=<rep>/<field>``, the samples bit-packed (``train_bits``, ``test_bits``, and
    ``n_nodes`` to unpack them); :func:`load_replicates` reads them back.
    """
    arrays = {}
    for rep, replicate in replicates.items():
        fields = _replicate_fields(replicate) | {"seed": np.array(int(seeds[rep]))}
        arrays |= {f"rep={int(rep)}/{k}": v for k, v in fields.items()}
    save_npz(dest, **arrays)


def load_replicates(path: PathLike) -> dict[int, SimulatedReplicate]:
    """Read what :func:`save_replicates` wrote: replicates by replicate number."""
    with np.load(path, allow_pickle=False) as npz:
        reps = sorted({int(k.split("/")[0].removeprefix("rep=")) for k in npz.files if "/" in k})
        if not reps:
            raise ValueError(f"{path}: no replicates (keys rep=<rep>/<field>)")
        try:
            return {rep: _replicate_from(npz, f"rep={rep}/") for rep in reps}
        except KeyError as err:
            raise ValueError(f"{path}: incomplete replicate block, missing key {err}") from None


# --------------------------------------------------------------------------------------------
# estimators
# --------------------------------------------------------------------------------------------


@dataclass
class Fit:
    """One estimator's output.

    Attributes
    ----------
    estimator : str
    theta : ndarray of float, shape (E,)
        The estimate (posterior mean for the Bayesian estimators).
    seconds : float
        Wall time of the estimator itself; for the samplers :attr:`GroupingResult.run_time`
        (K-means start and MCMC, not the grouping-blind MLE that is passed in).
    result : GroupingResult or None
        The sampler's full output (None for ``mle`` and ``oracle``).
    """

    estimator: str
    theta: np.ndarray
    seconds: float
    result: GroupingResult | None = None


def fit_estimator(
    estimator: str,
    graph: PairwiseGraph,
    X: np.ndarray,
    *,
    rng: np.random.Generator,
    settings: Mapping[str, Any] | None = None,
    pcd: Mapping[str, Any] | None = None,
    alpha0: float = 1.0,
    burn_in_fraction: float = 0.0,
    groups: np.ndarray | None = None,
    mle: np.ndarray | None = None,
) -> Fit:
    """Run one of :data:`ESTIMATORS` on training samples ``X``.

    Parameters
    ----------
    estimator : str
        One of :data:`ESTIMATORS`.
    graph : PairwiseGraph
    X : array_like, shape (n, p)
        Training samples over ``{0, 1}`` or ``{-1, 1}``.
    rng : numpy.random.Generator
    settings : mapping, optional
        Keyword arguments of the sampler (``n_steps``; for ``mh_auxvar`` also ``n_proposals``,
        ``sigma_q``, ``n_phi_steps``, ``particle_sweeps``, ``auxiliary``, ``particles``; for
        ``dp_gibbs_tree`` ``sampler``: ``"blocked"`` (default, :func:`~bnstudy.mrf.grouping.dp_blocked_gibbs_tree`,
        also ``truncation``) or ``"collapsed"`` (:func:`~bnstudy.mrf.grouping.dp_gibbs_tree`)).
        Unused by ``mle`` and ``oracle``.
    pcd : mapping, optional
        PCD settings: ``n_iter``, ``n_particles``, ``learning_rate`` (grouping-blind and oracle
        MLE, and the samplers' tied refits) and ``step_iter`` (PCD iterations of the tied refit in
        each ``gibbs_sba`` / ``mh_auxvar`` step). Missing keys take the library defaults.
    alpha0 : float, default 1.0
        DP concentration (the paper's 1.0).
    burn_in_fraction : float, default 0.0
        Fraction of the MCMC steps left out of the posterior mean (the paper averages all).
    groups : array_like of int, shape (E,), optional
        The true grouping; required by ``oracle``.
    mle : array_like of float, shape (E,), optional
        The grouping-blind MLE ``theta~`` for ``gibbs_exactl``, ``gibbs_sba`` and ``mh_auxvar``
        (computed by PCD when omitted).

    Returns
    -------
    Fit

    Raises
    ------
    ValueError
        On an unknown estimator, ``oracle`` without ``groups``, a sampler without ``n_steps``, or
        a burn-in fraction outside ``[0, 1)``.
    """
    if estimator not in ESTIMATORS:
        raise ValueError(f"unknown estimator {estimator!r}; known: {', '.join(ESTIMATORS)}")
    if not 0.0 <= float(burn_in_fraction) < 1.0:
        raise ValueError(f"burn_in_fraction must be in [0, 1), got {burn_in_fraction}")
    pcd = dict(pcd or {})
    pcd_params = {k: pcd[k] for k in _PCD_KEYS if k in pcd}
    settings = dict(settings or {})
    start = time.perf_counter()
    if estimator == "mle":
        if graph.is_forest:
            theta = tree_mle(graph, X)
        else:
            theta = pcd_mle(graph, X, rng=rng, **pcd_params)
        return Fit(estimator, theta, time.perf_counter() - start)
    if estimator == "oracle":
        if groups is None:
            raise ValueError("the oracle MLE needs the true groups")
        theta = oracle_mle(graph, X, np.asarray(groups), rng=rng, **pcd_params)
        return Fit(estimator, theta, time.perf_counter() - start)

    if "n_steps" not in settings:
        raise ValueError(f"{estimator} needs settings['n_steps'], got {sorted(settings)}")
    n_steps = int(settings.pop("n_steps"))
    common = {
        "n_steps": n_steps,
        "burn_in": int(math.floor(float(burn_in_fraction) * n_steps)),
        "rng": rng,
        "alpha0": float(alpha0),
    }
    if estimator == "dp_gibbs_tree":
        sampler = settings.pop("sampler", "blocked")
        if sampler == "blocked":
            result = dp_blocked_gibbs_tree(graph, X, keep_samples=False, **common, **settings)
        elif sampler == "collapsed":
            result = dp_gibbs_tree(graph, X, **common, **settings)
        else:
            raise ValueError(
                f"dp_gibbs_tree: sampler must be 'blocked' or 'collapsed', got {sampler!r}"
            )
    else:
        common |= {"mle": mle, "pcd_params": pcd_params}
        if estimator == "gibbs_exactl":
            result = gibbs_exactl(graph, X, **common, **settings)
        else:
            if "step_iter" in pcd:
                common["step_pcd_iter"] = int(pcd["step_iter"])
            sampler = gibbs_sba if estimator == "gibbs_sba" else mh_auxvar
            result = sampler(graph, X, **common, **settings)
    return Fit(estimator, result.theta_mean, result.run_time, result)


# --------------------------------------------------------------------------------------------
# metrics
# --------------------------------------------------------------------------------------------


def heldout_log_likelihood(
    graph: PairwiseGraph, theta: np.ndarray, X: np.ndarray
) -> tuple[float, str]:
    """The paper's second measure: test log-likelihood, or log pseudo-likelihood when intractable.

    Exact on forests (closed form) and on graphs of at most 20 nodes (enumeration); the log
    pseudo-likelihood (Besag 1975) on larger graphs (Sec. 4.3).

    Returns
    -------
    value : float
        Summed over the samples of ``X``.
    kind : {"loglik", "pseudo_loglik"}
    """
    if graph.is_forest or graph.n_nodes <= AUTO_ENUMERATION_NODES:
        return log_likelihood(graph, theta, X), "loglik"
    return log_pseudo_likelihood(graph, theta, X), "pseudo_loglik"


def _entropy(p: np.ndarray) -> float:
    return -np.sum(p * np.log(p))


def _vi_to_truth(gs: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``VI(gs[t], truth)`` for every row of ``gs``, as :func:`variation_of_information` computes it.

    Rows of ``gs`` and ``truth`` hold labels ``0 .. k - 1`` in the order ``numpy.unique`` gives
    them. The joint counts of all rows come from one ``bincount``; the entropies are summed row by
    row over the same entries in the same order as the reference, so the values are equal.
    """
    T, r = gs.shape
    kg, kb = int(gs.max()) + 1, int(truth.max()) + 1
    rows = np.arange(T)[:, None]
    joint = np.bincount(
        (rows * (kg * kb) + gs * kb + truth[None, :]).ravel(), minlength=T * kg * kb
    )
    joint = joint.reshape(T, kg * kb).astype(np.float64) / r
    pa = np.bincount((rows * kg + gs).ravel(), minlength=T * kg).reshape(T, kg) / r
    h_b = _entropy(np.bincount(truth) / r)
    k = gs.max(axis=1) + 1
    out = np.empty(T)
    for t in range(T):
        j = joint[t]
        vi = 2.0 * _entropy(j[j > 0]) - _entropy(pa[t, : k[t]]) - h_b
        out[t] = float(vi) if vi > 1e-12 else 0.0
    return out


def _compact_labels(gs: np.ndarray) -> np.ndarray | None:
    """``gs`` as int64 when every row already holds exactly the labels ``0 .. k_t - 1``, else None.

    Such a row is its own ``numpy.unique(row, return_inverse=True)[1]`` (the samplers' labels,
    :func:`~bnstudy.mrf.grouping.canonical_labels`, are of this form), so the sort can be skipped.
    """
    if not np.issubdtype(gs.dtype, np.integer) or gs.size == 0:
        return None
    if gs.min() < 0 or gs.max() >= gs.shape[1]:
        return None  # (k labels 0 .. k - 1 among r items need k <= r)
    T = gs.shape[0]
    width = int(gs.max()) + 1
    seen = np.bincount((np.arange(T)[:, None] * width + gs).ravel(), minlength=T * width)
    seen = seen.reshape(T, width) > 0
    k = gs.max(axis=1) + 1
    if int(seen.sum()) != int(k.sum()):  # a label below some row's maximum is missing there
        return None
    return gs.astype(np.int64)


def vi_difference_fast(
    groupings: np.ndarray, truth: np.ndarray, *, rng: np.random.Generator
) -> float:
    """:func:`bnstudy.mrf.metrics.vi_difference` with the joint counts of all steps at once.

    Draws the same random groupings from ``rng`` in the same order (one
    :func:`~bnstudy.mrf.metrics.random_grouping` per step) and returns the same value; on the
    paper's tree (8,190 edges, 500 steps) it needs no ``numpy.unique`` at all when the steps'
    labels are already ``0 .. k - 1`` (the samplers' canonical labels), else one per step instead
    of five.
    """
    gs = np.atleast_2d(np.asarray(groupings))
    truth = np.unique(np.asarray(truth).ravel(), return_inverse=True)[1].reshape(-1)
    if gs.shape[1] != truth.size:
        raise ValueError(f"groupings have {gs.shape[1]} items, truth has {truth.size}")
    labels = _compact_labels(gs)
    if labels is None:
        labels = np.empty(gs.shape, dtype=np.int64)
        for t, g in enumerate(gs):
            labels[t] = np.unique(g, return_inverse=True)[1].reshape(-1)
    n_groups = labels.max(axis=1) + 1
    rand = np.empty(gs.shape, dtype=np.int64)
    for t in range(gs.shape[0]):
        rand[t] = random_grouping(truth.size, int(n_groups[t]), rng=rng)
    return float((_vi_to_truth(rand, truth) - _vi_to_truth(labels, truth)).mean())


def _sampler_summary(fit: Fit, truth: np.ndarray | None, rng: np.random.Generator) -> dict:
    """Groups, steps, acceptance rates and (with a truth) the VI difference of a sampler's run."""
    res = fit.result
    if res is None:
        return {
            "n_steps": 0,
            "n_groups": np.nan,
            "n_groups_final": np.nan,
            "init_seconds": np.nan,
            "vi_difference": np.nan,
            "c_acceptance": np.nan,
            "phi_acceptance": np.nan,
        }
    kept = slice(res.burn_in, None)
    return {
        "n_steps": res.n_steps,
        "n_groups": float(res.n_groups[kept].mean()),
        "n_groups_final": int(res.n_groups[-1]),
        "init_seconds": res.init_time,
        # Sec. 4: VI(C_bar, C) - VI(C_hat, C), averaged over the (kept) MCMC steps
        "vi_difference": (
            vi_difference_fast(res.groupings[kept], truth, rng=rng) if truth is not None else np.nan
        ),
        "c_acceptance": res.diagnostics.get("c_acceptance", np.nan),
        "phi_acceptance": res.diagnostics.get("phi_acceptance", np.nan),
    }


def _arrays(fit: Fit) -> dict[str, np.ndarray]:
    arrays = {"theta": fit.theta}
    if fit.result is not None:
        arrays |= {"n_groups_trace": fit.result.n_groups, "mle": fit.result.mle}
    return arrays


def run_simulation_fit(
    estimator: str,
    graph: PairwiseGraph,
    replicate: SimulatedReplicate,
    n: int,
    *,
    rng: np.random.Generator,
    **options: Any,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Fit one estimator on the first ``n`` training rows of a replicate and measure it.

    Parameters
    ----------
    estimator : str
    graph : PairwiseGraph
    replicate : SimulatedReplicate
    n : int
        Training size.
    rng : numpy.random.Generator
        Drives the estimator, then the random groupings of the VI difference.
    **options
        ``settings``, ``pcd``, ``alpha0``, ``burn_in_fraction`` and ``mle`` of
        :func:`fit_estimator` (the true groups come from the replicate).

    Returns
    -------
    row : dict
        ``n_train``, ``n_test``, ``n_nodes``, ``n_edges``, ``n_groups_true`` (non-empty true
        groups), ``mae``, ``test_loglik`` (summed over the test set), ``test_loglik_per_sample``,
        ``test_metric`` (``loglik`` or ``pseudo_loglik``), ``seconds`` and the sampler summary
        (``n_steps``, ``n_groups`` = mean over the kept steps, ``n_groups_final``,
        ``init_seconds``, ``vi_difference``, ``c_acceptance``, ``phi_acceptance``; NaN for the
        MLEs).
    arrays : dict of str to ndarray
        ``theta`` (the estimate) and, for samplers, ``n_groups_trace`` and ``mle``.
    """
    X = replicate.training_set(n)
    fit = fit_estimator(estimator, graph, X, rng=rng, groups=replicate.groups, **options)
    return _measure(graph, replicate, X, fit, rng)


def _measure(
    graph: PairwiseGraph,
    replicate: SimulatedReplicate,
    X: np.ndarray,
    fit: Fit,
    rng: np.random.Generator,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The metrics row and arrays of one fit (see :func:`run_simulation_fit`)."""
    estimator, n = fit.estimator, X.shape[0]
    test_ll, kind = heldout_log_likelihood(graph, fit.theta, replicate.test)
    row = {
        "n_train": int(X.shape[0]),
        "n_test": int(replicate.test.shape[0]),
        "n_nodes": graph.n_nodes,
        "n_edges": graph.n_edges,
        "n_groups_true": int(np.unique(replicate.groups).size),
        "mae": mean_absolute_error(replicate.theta, fit.theta),
        "test_loglik": test_ll,
        "test_loglik_per_sample": test_ll / replicate.test.shape[0],
        "test_metric": kind,
        "seconds": fit.seconds,
        **_sampler_summary(fit, replicate.groups, rng),
    }
    logger.info(
        "%s on %s, n=%d: MAE %.4f, test %s %.2f, %.2f s",
        estimator,
        graph.name,
        n,
        row["mae"],
        kind,
        test_ll,
        fit.seconds,
    )
    return row, _arrays(fit)


def run_simulation_block(
    estimator: str,
    graph: PairwiseGraph,
    replicates: Mapping[int, SimulatedReplicate],
    ns: Sequence[int],
    seeds: Mapping[tuple[int, int], int],
    *,
    mles: Mapping[tuple[int, int], np.ndarray] | None = None,
    chains_per_batch: int = 10,
    **options: Any,
) -> list[tuple[dict[str, Any], dict[str, np.ndarray]]]:
    """:func:`run_simulation_fit` for every training size and replicate of a block.

    Each run ``(n, rep)`` gets its own generator, ``numpy.random.default_rng(seeds[n, rep])``,
    and its result is the one :func:`run_simulation_fit` gives with that generator: running
    replicates together changes no replicate's result. The blocked tree sampler
    (``dp_gibbs_tree`` with ``sampler: blocked``) runs up to ``chains_per_batch`` replicates of
    one ``n`` side by side (:func:`~bnstudy.mrf.grouping.dp_blocked_gibbs_tree`); its ``seconds``
    are the batch's wall time per chain.

    Parameters
    ----------
    estimator : str
    graph : PairwiseGraph
    replicates : mapping of int to SimulatedReplicate
        The block's replicates by replicate number.
    ns : sequence of int
        Training sizes.
    seeds : mapping of (n, rep) to int
    mles : mapping of (n, rep) to ndarray, optional
        The grouping-blind MLE of each run, for the samplers that start from it.
    chains_per_batch : int, default 10
    **options
        As for :func:`run_simulation_fit`.

    Returns
    -------
    list of (row, arrays)
        In the order ``n`` (outer), replicate (inner); each row starts with ``n`` and ``rep``.
    """
    if int(chains_per_batch) < 1:
        raise ValueError(f"chains_per_batch must be >= 1, got {chains_per_batch}")
    missing = [(n, rep) for n in ns for rep in replicates if (int(n), int(rep)) not in seeds]
    if missing:
        raise ValueError(f"no seed for the runs (n, rep) {missing[:5]}")
    settings = dict(options.get("settings") or {})
    batched = estimator == "dp_gibbs_tree" and settings.get("sampler", "blocked") == "blocked"
    out = []
    for n in ns:
        runs = [(int(n), int(rep)) for rep in replicates]
        if not batched:
            for key in runs:
                mle = None if mles is None else mles.get(key)
                row, arrays = run_simulation_fit(
                    estimator,
                    graph,
                    replicates[key[1]],
                    key[0],
                    rng=np.random.default_rng(seeds[key]),
                    **(options | {"mle": mle} if mle is not None else options),
                )
                out.append(({"n": key[0], "rep": key[1], **row}, arrays))
            continue
        for lo in range(0, len(runs), int(chains_per_batch)):
            chunk = runs[lo : lo + int(chains_per_batch)]
            rngs = [np.random.default_rng(seeds[key]) for key in chunk]
            Xs = [replicates[rep].training_set(n_) for n_, rep in chunk]
            fits = _fit_tree_chains(graph, Xs, rngs, settings, options)
            for key, X, fit, rng in zip(chunk, Xs, fits, rngs, strict=True):
                row, arrays = _measure(graph, replicates[key[1]], X, fit, rng)
                out.append(({"n": key[0], "rep": key[1], **row}, arrays))
    return out


def _fit_tree_chains(
    graph: PairwiseGraph,
    Xs: list[np.ndarray],
    rngs: list[np.random.Generator],
    settings: Mapping[str, Any],
    options: Mapping[str, Any],
) -> list[Fit]:
    """The blocked tree sampler on several data sets at once, as :func:`fit_estimator` runs it."""
    settings = dict(settings)
    settings.pop("sampler", None)
    if "n_steps" not in settings:
        raise ValueError(f"dp_gibbs_tree needs settings['n_steps'], got {sorted(settings)}")
    n_steps = int(settings.pop("n_steps"))
    burn_in_fraction = float(options.get("burn_in_fraction", 0.0))
    if not 0.0 <= burn_in_fraction < 1.0:
        raise ValueError(f"burn_in_fraction must be in [0, 1), got {burn_in_fraction}")
    results = dp_blocked_gibbs_tree(
        graph,
        Xs,
        n_steps=n_steps,
        burn_in=int(math.floor(burn_in_fraction * n_steps)),
        rng=rngs,
        alpha0=float(options.get("alpha0", 1.0)),
        keep_samples=False,
        **settings,
    )
    return [Fit("dp_gibbs_tree", res.theta_mean, res.run_time, res) for res in results]


# --------------------------------------------------------------------------------------------
# US Senate (Sec. 5)
# --------------------------------------------------------------------------------------------


def learn_senate_graph(votes: np.ndarray, target_edges: int = 279) -> PairwiseGraph:
    """The Senate MRF structure, learned from the training session's votes.

    The paper's graph (Fig. 13 of Banerjee et al. 2008, 279 edges) is not public; this is L1
    logistic neighbourhood selection tuned to ``target_edges`` edges
    (:func:`~bnstudy.mrf.senate.neighbourhood_selection_graph`), on the training votes only.
    """
    return neighbourhood_selection_graph(check_samples(votes), int(target_edges))


def save_graph(dest: PathLike, graph: PairwiseGraph) -> None:
    """Write a graph (nodes, edge list, name) to one ``.npz`` atomically."""
    save_npz(dest, n_nodes=np.array(graph.n_nodes), edges=graph.edges, name=np.array(graph.name))


def load_graph(path: PathLike) -> PairwiseGraph:
    """Read what :func:`save_graph` wrote."""
    with np.load(path, allow_pickle=False) as npz:
        return from_edges(int(npz["n_nodes"]), npz["edges"], name=str(npz["name"]))


def run_senate_fit(
    estimator: str,
    graph: PairwiseGraph,
    train: np.ndarray,
    test: np.ndarray,
    *,
    rng: np.random.Generator,
    **options: Any,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Fit ``mle`` or ``gibbs_sba`` on one Senate session and score both sessions (Table 2).

    Parameters
    ----------
    estimator : {"mle", "gibbs_sba"}
    graph : PairwiseGraph
        Learned from ``train`` (:func:`learn_senate_graph`).
    train, test : array_like, shape (votes, senators)
        Votes over ``{-1, 1}`` (missing votes already coded -1).
    rng : numpy.random.Generator
    **options
        As for :func:`fit_estimator`.

    Returns
    -------
    row : dict
        ``n_train``, ``n_test`` (votes), ``n_nodes``, ``n_edges``, ``lpl_train``, ``lpl_test``
        (log pseudo-likelihoods), ``seconds`` and the sampler summary (no VI difference: the
        true grouping is unknown).
    arrays : dict of str to ndarray
    """
    if estimator not in ("mle", "gibbs_sba"):
        raise ValueError(f"the Senate experiment runs mle and gibbs_sba, got {estimator!r}")
    train, test = check_samples(train, graph.n_nodes), check_samples(test, graph.n_nodes)
    fit = fit_estimator(estimator, graph, train, rng=rng, **options)
    row = {
        "n_train": int(train.shape[0]),
        "n_test": int(test.shape[0]),
        "n_nodes": graph.n_nodes,
        "n_edges": graph.n_edges,
        "lpl_train": log_pseudo_likelihood(graph, fit.theta, train),
        "lpl_test": log_pseudo_likelihood(graph, fit.theta, test),
        "seconds": fit.seconds,
        **_sampler_summary(fit, None, rng),
    }
    logger.info(
        "Senate %s: LPL train %.2f, test %.2f, %.1f s",
        estimator,
        row["lpl_train"],
        row["lpl_test"],
        fit.seconds,
    )
    return row, _arrays(fit)


# --------------------------------------------------------------------------------------------
# outputs
# --------------------------------------------------------------------------------------------


def write_fit(
    metrics: PathLike,
    estimate: PathLike,
    keys: Mapping[str, Any],
    row: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
    *,
    seed: int,
) -> None:
    """Write one fit's outputs atomically: the metrics row and the estimate's arrays.

    Parameters
    ----------
    metrics : path-like
        CSV of one row: ``keys``, then ``row``, then the provenance (package version, git
        commit, ``seed``).
    estimate : path-like
        ``.npz`` of ``arrays``.
    keys : mapping
        What identifies the run (simulation, estimator, n, replicate; or the Senate sessions).
    row, arrays
        What :func:`run_simulation_fit` or :func:`run_senate_fit` returned.
    seed : int
        The seed the run's generator was made from.
    """
    _write_rows(metrics, [{**keys, **row, **provenance(seed)}])
    save_npz(estimate, **arrays)


def _write_rows(metrics: PathLike, records: Sequence[Mapping[str, Any]]) -> None:
    """One CSV row per record, written atomically."""
    with atomic_path(metrics) as tmp:
        pd.DataFrame.from_records(list(records)).to_csv(tmp, index=False)


def _run_key(n: int, rep: int) -> str:
    return f"n={int(n)}/rep={int(rep)}"


def write_block(
    metrics: PathLike,
    estimate: PathLike,
    keys: Mapping[str, Any],
    runs: Sequence[tuple[Mapping[str, Any], Mapping[str, np.ndarray]]],
    seeds: Mapping[tuple[int, int], int],
) -> None:
    """Write a block of runs atomically: one metrics row per run, every run's arrays in one file.

    Parameters
    ----------
    metrics : path-like
        CSV with one row per run: ``keys``, ``n``, ``rep``, the run's row, then the provenance
        (package version, git commit, the run's ``seed``): the columns :func:`write_fit` writes.
    estimate : path-like
        ``.npz`` with keys ``n=<n>/rep=<rep>/<array>``; :func:`load_run_arrays` reads one run.
    keys : mapping
        What the runs share (simulation, estimator).
    runs : sequence of (row, arrays)
        What :func:`run_simulation_block` returned (each row holds ``n`` and ``rep``).
    seeds : mapping of (n, rep) to int
    """
    records, arrays = [], {}
    for row, run_arrays in runs:
        n, rep = int(row["n"]), int(row["rep"])
        rest = {k: v for k, v in row.items() if k not in ("n", "rep")}
        prov = provenance(seeds[n, rep])
        records.append({**keys, "n": n, "rep": rep, **rest, **prov})
        arrays |= {f"{_run_key(n, rep)}/{k}": v for k, v in run_arrays.items()}
    _write_rows(metrics, records)
    save_npz(estimate, **arrays)


def load_run_arrays(path: PathLike, n: int, rep: int) -> dict[str, np.ndarray]:
    """The arrays of run ``(n, rep)`` in a block written by :func:`write_block`."""
    prefix = _run_key(n, rep) + "/"
    with np.load(path, allow_pickle=False) as npz:
        out = {k.removeprefix(prefix): npz[k] for k in npz.files if k.startswith(prefix)}
    if not out:
        raise ValueError(f"{path}: no arrays of the run n={n}, rep={rep}")
    return out
