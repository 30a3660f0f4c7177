"""MLE (PCD) or Gibbs_SBA on one Senate session, scored on both sessions (Liu & Page 2013, Table 2).

Outputs: ``metrics.csv`` (one row: train and test log pseudo-likelihood, groups, run time, seed,
provenance) and ``estimate.npz``.
"""

import logging

import numpy as np

from bnstudy.data.build import load_senate
from bnstudy.logs import configure_logging
from bnstudy.studies.mrf.experiments import load_graph, run_senate_fit, write_fit

logger = logging.getLogger(__name__)


def main(senate, graph, mle, metrics, estimate, *, session, estimator, settings, common, seed):
    votes = load_senate(senate).votes
    (test_session,) = (s for s in votes if s != session)
    row, arrays = run_senate_fit(
        estimator,
        load_graph(graph),
        votes[session],
        votes[test_session],
        rng=np.random.default_rng(seed),
        settings=settings,
        mle=np.load(mle)["theta"] if mle else None,
        **common,
    )
    keys = {"train_session": session, "test_session": test_session, "estimator": estimator}
    write_fit(metrics, estimate, keys, row, arrays, seed=seed)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.senate,
        snakemake.input.graph,
        snakemake.input.get("mle"),
        snakemake.output.metrics,
        snakemake.output.estimate,
        session=int(snakemake.wildcards.session),
        estimator=snakemake.wildcards.estimator,
        settings=snakemake.params.settings,
        common=snakemake.params.common,
        seed=snakemake.params.seed,
    )
