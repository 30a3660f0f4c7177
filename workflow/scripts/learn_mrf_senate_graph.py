"""The Senate MRF structure, learned from the training session's votes (Liu & Page 2013, Sec. 5).

Outputs: ``results/mrf/senate/train={session}/graph.npz``: about ``target_edges`` edges among the
99 senators by L1 logistic neighbourhood selection (the paper's graph is not public).
"""

import logging

from bnstudy.data.build import load_senate
from bnstudy.logs import configure_logging
from bnstudy.studies.mrf.experiments import learn_senate_graph, save_graph

logger = logging.getLogger(__name__)


def main(senate, dest, *, session, target_edges):
    votes = load_senate(senate).votes[session]
    graph = learn_senate_graph(votes, target_edges)
    save_graph(dest, graph)
    logger.info("session %d (%d votes): %s", session, votes.shape[0], graph)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.senate,
        snakemake.output.graph,
        session=int(snakemake.wildcards.session),
        target_edges=snakemake.params.target_edges,
    )
