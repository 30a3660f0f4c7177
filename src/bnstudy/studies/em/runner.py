"""One job of the EM paper's experiments: a sampled dataset, a hidden set, its sharing levels.

Every trial batch of Reed & Mengshoel (2014) that the workflow runs is one *design* (which nodes
are hidden, which sharing configurations are tried, which columns identify the batch) applied to
one network and one sampled dataset by :func:`run_em_job`:

``sharing``
    Sec. 5.2, Table 3, Fig. 2 and 5: the ``hidden_group``-th largest set of identical-CPT nodes is
    hidden and shared gradually (``first``, ``first + step``, ..., all hidden nodes, plus no
    sharing).
``endpoints``
    Fig. 6: ``hidden_count`` random nodes of that set are hidden; no sharing vs all shared.
``mini_adapt``
    Sec. 5.3.1, Table 4: mini-ADAPT with the observable set ``observables`` (O_C, O_P, O_T),
    with the SB nodes shared (``sharing = "SB"``) or not (``"none"``).

A design is a plain mapping (a rule's ``params``) with a ``kind`` key and the keys above;
:func:`trial_design` turns it into the hidden nodes and sharing levels.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike

import numpy as np
import pandas as pd

from bnstudy.data.integrity import load_verified_npz
from bnstudy.networks import load_network
from bnstudy.networks.bn import DiscreteBayesianNetwork
from bnstudy.parameters.sharing import gradual_sharing_sets
from bnstudy.studies.em.mini_adapt import hidden_nodes, shared_node_set
from bnstudy.studies.em.trials import EMSettings, choose_hidden, run_em_trials, save_trials

__all__ = ["DESIGN_KINDS", "TrialDesign", "job_design", "run_em_job", "trial_design"]

logger = logging.getLogger(__name__)

#: The kinds of design :func:`trial_design` understands, and the keys each requires.
DESIGN_KINDS = {
    "sharing": ("network", "hidden_group", "first", "step"),
    "endpoints": ("network", "hidden_group", "hidden_count"),
    "mini_adapt": ("observables", "sharing"),
}


def job_design(kind: str, em: Mapping[str, object], wildcards: Mapping[str, str]) -> dict:
    """The design of one workflow job: its kind, its wildcards and the config's ``em`` block.

    Parameters
    ----------
    kind : {"sharing", "endpoints", "mini_adapt"}
        The rule's kind of design.
    em : mapping
        The config's ``em`` block (``sharing.hidden_group``, ``sharing.first``, ``sharing.step``
        per network).
    wildcards : mapping
        The job's wildcards: ``network`` (and ``h`` for endpoints), or ``observables`` and
        ``sharing`` for mini-ADAPT.

    Returns
    -------
    dict
        A plain mapping for :func:`trial_design` (a rule's ``params``).

    Raises
    ------
    ValueError
        On an unknown kind, or a network missing from a per-network map (the message names the
        key ``em.sharing.<name>``).
    """
    if kind not in DESIGN_KINDS:
        raise ValueError(f"unknown EM design kind {kind!r}; use one of {list(DESIGN_KINDS)}")
    if kind == "mini_adapt":
        return {
            "kind": kind,
            "observables": wildcards["observables"],
            "sharing": wildcards["sharing"],
        }
    network = wildcards["network"]
    per_network = ("hidden_group",) if kind == "endpoints" else ("hidden_group", "first", "step")
    sharing = em["sharing"]
    missing = [k for k in per_network if network not in sharing[k]]
    if missing:
        raise ValueError(
            f"network {network!r} has no entry in {', '.join(f'em.sharing.{k}' for k in missing)}"
        )
    design = {"kind": kind, "network": network, **{k: sharing[k][network] for k in per_network}}
    if kind == "endpoints":
        design["hidden_count"] = int(wildcards["h"])
    return design


@dataclass(frozen=True)
class TrialDesign:
    """What one batch of EM trials hides and shares, and the columns that identify it.

    Attributes
    ----------
    hidden : list of str
        The hidden nodes, in network order.
    levels : list of list of str
        One sharing configuration per entry (an empty set: no sharing).
    columns : dict
        Columns added to every trial row before ``n_hidden`` and ``n_samples``.
    """

    hidden: list[str]
    levels: list[list[str]]
    columns: dict[str, object] = field(default_factory=dict)


def trial_design(
    bn: DiscreteBayesianNetwork, design: Mapping[str, object], *, seed: int
) -> TrialDesign:
    """The hidden set and sharing levels of ``design`` on ``bn``.

    Parameters
    ----------
    bn : DiscreteBayesianNetwork
        The true network.
    design : mapping
        ``kind`` (a key of :data:`DESIGN_KINDS`) and that kind's keys.
    seed : int
        The job's seed: ``numpy.random.default_rng(seed)`` draws the random hidden subset of
        ``endpoints`` and the order in which ``sharing`` adds nodes to the shared set.

    Raises
    ------
    ValueError
        On an unknown kind or a missing key (the message names it).
    """
    kind = design.get("kind")
    if kind not in DESIGN_KINDS:
        raise ValueError(f"unknown EM design kind {kind!r}; use one of {list(DESIGN_KINDS)}")
    missing = [k for k in DESIGN_KINDS[kind] if k not in design]
    if missing:
        raise ValueError(f"the EM design of kind {kind!r} lacks the keys {missing}")
    if kind == "mini_adapt":
        shared = shared_node_set() if design["sharing"] == "SB" else []
        return TrialDesign(
            hidden=hidden_nodes(design["observables"]),
            levels=[shared],
            columns={"observables": design["observables"], "sharing": design["sharing"]},
        )
    rng = np.random.default_rng(seed)
    count = design.get("hidden_count")
    hidden = choose_hidden(
        bn, design["hidden_group"], count=None if count is None else int(count), rng=rng
    )
    step = design.get("step")
    if step:
        levels = gradual_sharing_sets(hidden, step, rng=rng, first=design.get("first"))
    else:  # the two ends only: no sharing, and every hidden node shared
        levels = [[], hidden]
    logger.info("%s: %d hidden, sharing levels %s", bn.name, len(hidden), [len(s) for s in levels])
    return TrialDesign(hidden=hidden, levels=levels, columns={"network": design["network"]})


def run_em_job(
    network: str | PathLike,
    samples: str | PathLike,
    trials_csv: str | PathLike,
    traces_npz: str | PathLike,
    *,
    design: Mapping[str, object],
    settings: EMSettings,
    seed: int,
    n_trials: int,
) -> pd.DataFrame:
    """Run the trials of one design on one sampled dataset and write them atomically.

    Parameters
    ----------
    network : path
        The true network (BIF or Hugin .net).
    samples : path
        An ``.npz`` whose ``samples`` array holds the data in network column order.
    trials_csv, traces_npz : path
        Outputs: one row per trial (:func:`~bnstudy.studies.em.trials.run_em_trials`'s columns,
        the design's columns, ``n_hidden``, ``n_samples`` and provenance), and the per-iteration
        log-likelihood and error traces.
    design : mapping
        See :func:`trial_design`.
    settings : EMSettings
        The EM settings of the paper's config block.
    seed : int
        The job's seed (design draws and every trial's start).
    n_trials : int
        Random starts per sharing level.

    Returns
    -------
    DataFrame
        The trials as returned by :func:`~bnstudy.studies.em.trials.run_em_trials`.
    """
    bn = load_network(network)
    data = load_verified_npz(samples)["samples"]
    plan = trial_design(bn, design, seed=seed)
    trials, traces = run_em_trials(
        bn, data, plan.hidden, plan.levels, n_trials=n_trials, seed=seed, settings=settings
    )
    save_trials(
        trials,
        traces,
        trials_csv,
        traces_npz,
        seed=seed,
        **plan.columns,
        n_hidden=len(plan.hidden),
        n_samples=len(data),
    )
    return trials
