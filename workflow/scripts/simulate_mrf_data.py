"""A block of replicates of a simulation of Liu & Page (2013): true grouped parameters, data.

Outputs: ``results/mrf/{simulation}/block={block}/data.npz`` with, for each replicate ``rep`` of the
block, ``rep=<rep>/{theta,groups,n_groups,train,test,seed}`` (``train`` has the largest training
size, nested smaller sizes being its first rows). Each replicate has its own generator, seeded from
the config seed, the simulation and the replicate number, so blocking changes no replicate.
"""

import logging

import numpy as np

from bnstudy.logs import configure_logging
from bnstudy.studies.mrf.experiments import save_replicates, simulate_replicate, simulation_graph

logger = logging.getLogger(__name__)


def main(dest, *, graph, seeds, n_groups, n_train, n_test, gibbs_sweeps):
    g = simulation_graph(**graph)
    replicates = {
        int(rep): simulate_replicate(
            g,
            n_groups=n_groups,
            n_train=n_train,
            n_test=n_test,
            rng=np.random.default_rng(seed),
            gibbs_sweeps=gibbs_sweeps,
        )
        for rep, seed in seeds.items()
    }
    save_replicates(dest, replicates, {int(rep): seed for rep, seed in seeds.items()})
    logger.info(
        "%s: %d replicates of %d training and %d test samples",
        g.name,
        len(replicates),
        n_train,
        n_test,
    )


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.output.data,
        graph=snakemake.params.graph,
        seeds=snakemake.params.seeds,
        n_groups=snakemake.params.n_groups,
        n_train=snakemake.params.n_train,
        n_test=snakemake.params.n_test,
        gibbs_sweeps=snakemake.params.gibbs_sweeps,
    )
