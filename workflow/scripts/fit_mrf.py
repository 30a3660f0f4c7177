"""One estimator on every training size of a block of simulated replicates (Liu & Page 2013, Sec. 4).

Outputs: ``metrics.csv`` (one row per training size and replicate: error, test log-likelihood,
VI difference, groups, run time, seed and provenance) and ``estimates.npz`` (each run's estimate
under ``n=<n>/rep=<rep>/``; for samplers also the number of groups after each step). Each run has
its own generator, seeded from the config seed and the run's simulation, estimator, ``n`` and
replicate, so blocking changes no run's result.
"""

import logging

from bnstudy.logs import configure_logging
from bnstudy.studies.mrf.experiments import (
    load_replicates,
    load_run_arrays,
    run_simulation_block,
    simulation_graph,
    write_block,
)

logger = logging.getLogger(__name__)


def main(
    data,
    mle,
    metrics,
    estimate,
    *,
    simulation,
    estimator,
    sample_sizes,
    seeds,
    graph,
    settings,
    common,
    chains_per_batch=10,
):
    g = simulation_graph(**graph)
    replicates = load_replicates(data)
    seeds = {(int(n), int(rep)): int(s) for (n, rep), s in seeds}
    mles = None
    if mle:
        mles = {
            key: load_run_arrays(mle, *key)["theta"]
            for key in ((int(n), rep) for n in sample_sizes for rep in replicates)
        }
    runs = run_simulation_block(
        estimator,
        g,
        replicates,
        [int(n) for n in sample_sizes],
        seeds,
        mles=mles,
        chains_per_batch=chains_per_batch,
        settings=settings,
        **common,
    )
    write_block(metrics, estimate, {"simulation": simulation, "estimator": estimator}, runs, seeds)
    logger.info("%s on %s: %d runs", estimator, simulation, len(runs))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.data,
        snakemake.input.get("mle"),
        snakemake.output.metrics,
        snakemake.output.estimate,
        simulation=snakemake.wildcards.simulation,
        estimator=snakemake.wildcards.estimator,
        sample_sizes=snakemake.params.sample_sizes,
        seeds=snakemake.params.seeds,
        graph=snakemake.params.graph,
        settings=snakemake.params.settings,
        common=snakemake.params.common,
    )
