"""One replicate of a simulation of Liu & Page (2013): true grouped parameters, training and test data.

Outputs: ``results/mrf/{simulation}/rep={rep}/data.npz`` (``theta``, ``groups``, ``train`` with the
largest training size, nested smaller sizes being its first rows, and ``test``).
"""

import logging

import numpy as np

from bnstudy.logs import configure_logging
from bnstudy.studies.mrf.experiments import save_replicate, simulate_replicate, simulation_graph

logger = logging.getLogger(__name__)


def main(dest, *, graph, n_groups, n_train, n_test, gibbs_sweeps, seed):
    g = simulation_graph(**graph)
    replicate = simulate_replicate(
        g,
        n_groups=n_groups,
        n_train=n_train,
        n_test=n_test,
        rng=np.random.default_rng(seed),
        gibbs_sweeps=gibbs_sweeps,
    )
    save_replicate(dest, replicate, seed=seed)
    logger.info("%s: %d training and %d test samples", g.name, n_train, n_test)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.output.data,
        graph=snakemake.params.graph,
        n_groups=snakemake.params.n_groups,
        n_train=snakemake.params.n_train,
        n_test=snakemake.params.n_test,
        gibbs_sweeps=snakemake.params.gibbs_sweeps,
        seed=snakemake.params.seed,
    )
