"""ROPART and the Markov blankets of one sampled dataset, shared by its LSBN runs.

Output: ``prepared.npz`` (:func:`bnstudy.studies.lsbn.prepared.save_prepared`): the partitions,
thresholds and weights of ROPART (Algorithm 1), the symmetrised IAMB blankets (Algorithm 2,
step 1) and the seconds each took.
"""

import logging

from bnstudy.data.integrity import load_verified_npz
from bnstudy.logs import configure_logging
from bnstudy.structure.lsbn import prepare
from bnstudy.studies.lsbn.prepared import save_prepared

logger = logging.getLogger(__name__)


def main(samples, dest, *, name, settings):
    data = load_verified_npz(samples)["samples"]
    prepared = prepare(data, **settings)
    logger.info(
        "%s: %d non-constant columns, %d communities, %d blanket edges, %s",
        name,
        len(prepared.columns),
        len(prepared.ropart.second_order),
        int(prepared.blankets.sum()) // 2,
        ", ".join(f"{k} {v:.2f} s" for k, v in prepared.timings.items()),
    )
    save_prepared(dest, prepared)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.samples,
        snakemake.output.prepared,
        name=snakemake.wildcards.network,
        settings=snakemake.params.settings,
    )
