"""One estimator on one training set of a simulated replicate (Liu & Page 2013, Sec. 4).

Outputs: ``metrics.csv`` (one row: error, test log-likelihood, VI difference, groups, run time,
seed and provenance) and ``estimate.npz`` (the estimate; for samplers also the number of groups
after each step).
"""

import logging

import numpy as np

from bnstudy.logs import configure_logging
from bnstudy.studies.mrf.experiments import (
    load_replicate,
    run_simulation_fit,
    simulation_graph,
    write_fit,
)

logger = logging.getLogger(__name__)


def main(
    data, mle, metrics, estimate, *, simulation, estimator, n, rep, graph, settings, common, seed
):
    g = simulation_graph(**graph)
    row, arrays = run_simulation_fit(
        estimator,
        g,
        load_replicate(data),
        n,
        rng=np.random.default_rng(seed),
        settings=settings,
        mle=np.load(mle)["theta"] if mle else None,
        **common,
    )
    keys = {"simulation": simulation, "estimator": estimator, "n": n, "rep": rep}
    write_fit(metrics, estimate, keys, row, arrays, seed=seed)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.data,
        snakemake.input.get("mle"),
        snakemake.output.metrics,
        snakemake.output.estimate,
        simulation=snakemake.wildcards.simulation,
        estimator=snakemake.wildcards.estimator,
        n=int(snakemake.wildcards.n),
        rep=int(snakemake.wildcards.rep),
        graph=snakemake.params.graph,
        settings=snakemake.params.settings,
        common=snakemake.params.common,
        seed=snakemake.params.seed,
    )
