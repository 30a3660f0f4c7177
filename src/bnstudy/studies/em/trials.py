"""Batches of randomly initialised EM trials, and the statistics Reed & Mengshoel (2014) report.

A *trial* is one EM run from a random start (Sec. 5: "randomly initialized EM trials"). The
experiments run batches of trials per sharing configuration and summarise them by the mean and
standard deviation of the number of iterations, the log-likelihood and the error at convergence
(Table 3, Table 4, Figures 2-6).

References
----------
.. [1] E. Reed and O. J. Mengshoel, "Bayesian Network Parameter Learning using EM with Parameter
   Sharing", BMAW 2014, CEUR-WS Vol-1218, paper 5: Sec. 5.2 (gradual sharing), Sec. 5.3.2
   (Pearson correlations, Table 3).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bnstudy.inference import JunctionTree
from bnstudy.metrics.parameters import CPT_ERROR_METRICS, cpt_errors
from bnstudy.networks.bn import DiscreteBayesianNetwork
from bnstudy.parameters.em import ExpectationMaximization
from bnstudy.parameters.sharing import identical_cpt_sets

__all__ = [
    "METRICS",
    "EMSettings",
    "choose_hidden",
    "run_em_trials",
    "save_trials",
    "sharing_correlations",
    "summarize_trials",
]

logger = logging.getLogger(__name__)

#: Per-trial quantities summarised by mean and standard deviation (the paper's three metrics).
METRICS = ("iterations", "loglik", "error")


@dataclass(frozen=True)
class EMSettings:
    """The EM settings every experiment of the paper uses: the config's ``em`` block, once.

    Built from the config by :meth:`from_config` and handed whole to :func:`run_em_trials`; the
    values have no defaults here, so the config is their only source (the paper's values are
    ``tol = 1e-3``, ``min_iter = 3``, ``max_iter = 100``, Sec. 5).

    Parameters
    ----------
    tol, min_iter, max_iter, pseudo_count
        Hyperparameters of :class:`~bnstudy.parameters.em.ExpectationMaximization`.
    error_metric : str
        Which :func:`~bnstudy.metrics.parameters.cpt_errors` distance is a trial's ``error``.
    """

    tol: float
    min_iter: int
    max_iter: int
    pseudo_count: float
    error_metric: str

    def __post_init__(self) -> None:
        if self.error_metric not in CPT_ERROR_METRICS:
            raise ValueError(
                f"em.error_metric is {self.error_metric!r}; use one of {list(CPT_ERROR_METRICS)}"
            )

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The config keys of the settings, in field order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_config(cls, block: Mapping[str, object]) -> EMSettings:
        """The settings from the config's ``em`` block (keys that are not settings are ignored).

        Raises
        ------
        ValueError
            If a setting is missing (the message names the key ``em.<name>``) or the error metric
            is unknown. The hyperparameters themselves are checked by the estimator.
        """
        missing = [k for k in cls.keys() if k not in block]
        if missing:
            raise ValueError(f"the em settings lack {', '.join(f'em.{k}' for k in missing)}")
        return cls(**{k: block[k] for k in cls.keys()})

    def as_dict(self) -> dict[str, object]:
        """The settings as a plain mapping (what :meth:`from_config` reads back)."""
        return dataclasses.asdict(self)

    def estimator(self, sharing: Sequence[Sequence[str]] | None) -> ExpectationMaximization:
        """An unfitted EM estimator with these settings and the given sharing sets."""
        return ExpectationMaximization(
            sharing=sharing,
            tol=self.tol,
            min_iter=self.min_iter,
            max_iter=self.max_iter,
            pseudo_count=self.pseudo_count,
        )


def choose_hidden(
    bn: DiscreteBayesianNetwork,
    group_rank: int,
    *,
    count: int | None = None,
    rng: np.random.Generator | None = None,
) -> list[str]:
    """The hidden set: the ``group_rank``-th largest set of nodes with identical CPTs.

    Reed & Mengshoel hide a set of nodes that could share one CPT (Sec. 5.2). ``count`` draws a
    random subset of that size with ``rng`` (for a smaller hidden set, as their ADAPT P1 runs).
    The result is in ``bn.nodes`` order.
    """
    groups = [g for g in identical_cpt_sets(bn) if len(g) > 1]
    if not 1 <= group_rank <= len(groups):
        raise ValueError(
            f"{bn.name}: hidden group rank {group_rank} out of range; the network has "
            f"{len(groups)} sets of identical CPTs, of sizes {[len(g) for g in groups]}"
        )
    group = groups[group_rank - 1]
    if count is None:
        return list(group)
    if not 1 <= count <= len(group) or rng is None:
        raise ValueError(
            f"{bn.name}: cannot draw {count} hidden nodes from a set of {len(group)} "
            "(a count needs 1 <= count <= set size and an rng)"
        )
    chosen = set(rng.choice(group, size=count, replace=False).tolist())
    return [v for v in bn.nodes if v in chosen]


def run_em_trials(
    bn: DiscreteBayesianNetwork,
    data: np.ndarray,
    hidden: Sequence[str],
    shared_sets: Sequence[Sequence[str]],
    *,
    n_trials: int,
    seed: int,
    settings: EMSettings,
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Run ``n_trials`` randomly initialised EM fits for each sharing configuration.

    Parameters
    ----------
    bn : DiscreteBayesianNetwork
        The true network: its structure is learned on, its CPTs are the truth for the error.
    data : ndarray of int, shape (n, len(bn.nodes))
        Samples; the columns of ``hidden`` are ignored.
    hidden : sequence of str
        Nodes hidden in every sample.
    shared_sets : sequence of sequences of str
        One sharing configuration per entry: the nodes that share one CPT (an empty or one-node
        set means no sharing).
    n_trials : int
        Random starts per configuration.
    seed : int
        Trial ``t`` of the configuration with ``k`` shared nodes starts from
        ``numpy.random.default_rng([seed, k, t])``, so any trial can be rerun alone.
    settings : EMSettings
        The EM hyperparameters, and the :func:`~bnstudy.metrics.parameters.cpt_errors` distance
        that is the ``error`` column and the error trace (all four distances are also reported
        as ``error_<name>`` columns).

    Returns
    -------
    trials : DataFrame
        One row per trial: ``n_shared``, ``trial``, ``iterations``, ``converged``, ``loglik``,
        ``error``, ``error_<metric>`` for every metric, ``seconds``.
    traces : dict of str to ndarray
        ``loglik`` and ``error``: shape (rows of ``trials``, max_iter + 1), the value after each
        iteration (entry 0 the random start), NaN-padded after convergence.
    """
    if n_trials < 1:
        raise ValueError(f"n_trials must be >= 1, got {n_trials}")
    error_metric = settings.error_metric
    max_iter = settings.max_iter
    engine = JunctionTree(bn, hidden)  # compiled once, shared by every trial
    rows: list[dict[str, object]] = []
    ll_traces, err_traces = [], []
    for shared in shared_sets:
        sharing = [list(shared)] if len(shared) > 1 else None
        n_shared = len(shared) if len(shared) > 1 else 0
        for trial in range(n_trials):
            em = settings.estimator(sharing)
            start = time.perf_counter()
            em.fit(
                bn,
                data,
                hidden,
                rng=np.random.default_rng([seed, n_shared, trial]),
                true_cpts=bn.cpts,
                engine=engine,
            )
            seconds = time.perf_counter() - start
            errors = cpt_errors(bn.cpts, em.cpts_, bn.nodes)
            rows.append(
                {
                    "n_shared": n_shared,
                    "trial": trial,
                    "iterations": em.n_iter_,
                    "converged": em.converged_,
                    "loglik": em.log_likelihood_,
                    "error": errors[error_metric],
                    **{f"error_{name}": value for name, value in errors.items()},
                    "seconds": seconds,
                }
            )
            ll_traces.append(_padded(em.log_likelihood_trace_, max_iter + 1))
            err_traces.append(_padded([e[error_metric] for e in em.error_trace_], max_iter + 1))
        logger.info(
            "%s: %d trials with %d shared nodes, mean error %.3f",
            bn.name,
            n_trials,
            n_shared,
            np.mean([r["error"] for r in rows[-n_trials:]]),
        )
    return pd.DataFrame(rows), {"loglik": np.array(ll_traces), "error": np.array(err_traces)}


def save_trials(
    trials: pd.DataFrame,
    traces: Mapping[str, np.ndarray],
    trials_csv,
    traces_npz,
    *,
    seed: int,
    **columns: object,
) -> None:
    """Write a batch of trials (with ``columns`` and provenance added) and its traces atomically."""
    from bnstudy.utils import atomic_path, provenance, save_npz

    frame = trials.assign(**columns, **provenance(seed))
    with atomic_path(trials_csv) as tmp:
        frame.to_csv(tmp, index=False)
    save_npz(traces_npz, **traces)


def _padded(values: Sequence[float], length: int) -> np.ndarray:
    out = np.full(length, np.nan)
    out[: len(values)] = values
    return out


def summarize_trials(trials: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean and standard deviation (ddof=1) of every metric of :data:`METRICS` per group."""
    grouped = trials.groupby(list(by), sort=True)[list(METRICS)]
    stats = grouped.agg(["mean", "std"])
    stats.columns = [f"{metric}_{stat}" for metric, stat in stats.columns]
    stats["trials"] = grouped.size()
    return stats.reset_index()


def sharing_correlations(summary: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Pearson r between the number of shared nodes and each metric's mean and std (Table 3).

    ``r = sum (x_i - x̄)(y_i - ȳ) / ((m - 1) s_x s_y)`` over the ``m`` sharing levels of a group,
    with ``x`` = ``n_shared`` and ``y`` a column ``<metric>_mean`` or ``<metric>_std`` of
    :func:`summarize_trials`. A metric that does not vary across levels gives NaN.
    """
    rows = []
    for key, group in summary.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        row: dict[str, object] = dict(zip(by, key, strict=True))
        row["levels"] = len(group)
        x = group["n_shared"].to_numpy(float)
        for metric in METRICS:
            for stat in ("mean", "std"):
                y = group[f"{metric}_{stat}"].to_numpy(float)
                row[f"r_{metric}_{stat}"] = _pearson(x, y)
        rows.append(row)
    return pd.DataFrame(rows)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2 or np.std(x) == 0 or np.std(y) == 0 or not np.all(np.isfinite(y)):
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])
