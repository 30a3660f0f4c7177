"""EM trials under gradual parameter sharing on one sampled dataset (Reed & Mengshoel 2014, Sec. 5.2).

Outputs: ``trials.csv`` (one row per trial and sharing level) and ``traces.npz`` (log-likelihood
and error after every iteration, for the path figures).
"""

import logging

import numpy as np

from bnstudy.data.integrity import load_verified_npz
from bnstudy.logs import configure_logging
from bnstudy.networks import load_network
from bnstudy.parameters.sharing import gradual_sharing_sets
from bnstudy.studies.em.trials import choose_hidden, run_em_trials, save_trials

logger = logging.getLogger(__name__)


def main(network, samples, trials_csv, traces_npz, *, name, seed, hidden, schedule, em, n_trials):
    bn = load_network(network)
    data = load_verified_npz(samples)["samples"]
    rng = np.random.default_rng(seed)
    hidden_nodes = choose_hidden(bn, hidden["group"], count=hidden.get("count"), rng=rng)
    if schedule.get("step"):
        levels = gradual_sharing_sets(
            hidden_nodes, schedule["step"], rng=rng, first=schedule.get("first")
        )
    else:  # the two ends only: no sharing, and every hidden node shared
        levels = [[], hidden_nodes]
    logger.info(
        "%s: %d hidden, sharing levels %s", bn.name, len(hidden_nodes), [len(s) for s in levels]
    )
    trials, traces = run_em_trials(
        bn,
        data,
        hidden_nodes,
        levels,
        n_trials=n_trials,
        seed=seed,
        error_metric=em["error_metric"],
        em_options={k: em[k] for k in ("tol", "min_iter", "max_iter", "pseudo_count")},
    )
    save_trials(
        trials,
        traces,
        trials_csv,
        traces_npz,
        seed=seed,
        network=name,
        n_hidden=len(hidden_nodes),
        n_samples=len(data),
    )


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.network,
        snakemake.input.samples,
        snakemake.output.trials,
        snakemake.output.traces,
        name=snakemake.wildcards.network,
        seed=snakemake.params.seed,
        hidden=snakemake.params.hidden,
        schedule=snakemake.params.schedule,
        em=snakemake.params.em,
        n_trials=snakemake.params.trials,
    )
