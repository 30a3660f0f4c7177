"""Forward-sample a benchmark network.

Output: ``results/samples/<network>/n=<n>/rep=<rep>.npz`` with ``samples`` (n, nodes) state indices,
``nodes`` (column names, topological order), ``cardinality`` and the seed and provenance, and the
content hash its readers check (``bnstudy.data.integrity.load_verified_npz``).
"""

import logging

import numpy as np

from bnstudy.data.integrity import save_verified_npz
from bnstudy.logs import configure_logging
from bnstudy.networks import forward_sample, load_network
from bnstudy.utils import provenance

logger = logging.getLogger(__name__)


def main(network_path: str, n: int, seed: int, dest: str) -> None:
    bn = load_network(network_path)
    samples = forward_sample(bn, n, rng=np.random.default_rng(seed))
    save_verified_npz(
        dest,
        samples=samples,
        nodes=np.array(bn.nodes),
        cardinality=np.array([bn.cardinality[v] for v in bn.nodes]),
        provenance=np.array(str(provenance(seed))),
    )
    logger.info("%d samples from %s (seed %d)", n, bn.name, seed)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.network,
        int(snakemake.wildcards.n),
        snakemake.params.seed,
        snakemake.output.samples,
    )
