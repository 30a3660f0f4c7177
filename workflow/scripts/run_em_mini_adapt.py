"""EM trials on mini-ADAPT for one observable set, with or without sharing SB (Table 4).

Outputs: ``trials.csv`` and ``traces.npz`` as for run_em_sharing.
"""

import logging

from bnstudy.data.integrity import load_verified_npz
from bnstudy.logs import configure_logging
from bnstudy.networks import load_network
from bnstudy.studies.em.mini_adapt import hidden_nodes, shared_node_set
from bnstudy.studies.em.trials import run_em_trials, save_trials

logger = logging.getLogger(__name__)


def main(network, samples, trials_csv, traces_npz, *, observables, sharing, seed, em, n_trials):
    bn = load_network(network)
    data = load_verified_npz(samples)["samples"]
    hidden = hidden_nodes(observables)
    shared = shared_node_set() if sharing == "SB" else []
    trials, traces = run_em_trials(
        bn,
        data,
        hidden,
        [shared],
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
        observables=observables,
        sharing=sharing,
        n_hidden=len(hidden),
        n_samples=len(data),
    )


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.network,
        snakemake.input.samples,
        snakemake.output.trials,
        snakemake.output.traces,
        observables=snakemake.wildcards.observables,
        sharing=snakemake.wildcards.sharing,
        seed=snakemake.params.seed,
        em=snakemake.params.em,
        n_trials=snakemake.params.trials,
    )
