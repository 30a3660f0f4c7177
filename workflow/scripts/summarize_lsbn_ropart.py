"""ROPART on one sampled dataset, as LSBN partitions it: thresholds, remaining edges, partitions.

Reads the ROPART result of ``prepare_lsbn`` for the dataset, the one every LSBN run of it uses
(computed on the columns that are not constant in the sample: a constant column carries no
evidence of any edge and is in no community), so that Tables I-IV describe LSBN's partition.
Output: ``statistics.csv``, one row per partition (each weight function, then
``second_order``): truncation threshold and remaining-edge share (Table I; the share of the pairs
of non-constant columns), average shortest path and diameter in the true network (Tables II-III)
and the community sizes (Table IV).
"""

import logging

import numpy as np
import pandas as pd

from bnstudy.data.integrity import load_verified_npz
from bnstudy.logs import configure_logging
from bnstudy.networks import load_network
from bnstudy.structure.ropart import partition_statistics
from bnstudy.studies.lsbn.prepared import load_prepared
from bnstudy.utils import atomic_path, provenance

logger = logging.getLogger(__name__)


def main(network, samples, prepared, statistics, *, name, rep):
    bn = load_network(network)
    nodes = load_verified_npz(samples)["nodes"]
    index = {str(v): i for i, v in enumerate(nodes)}
    edges = [(index[u], index[v]) for u, v in bn.edges]
    p = len(index)
    prep = load_prepared(prepared)
    res, columns = prep.ropart, np.asarray(prep.columns)
    if columns.size and columns.max() >= p:
        raise ValueError(f"{prepared}: column {columns.max()} of a dataset of {p} columns")
    logger.info("%s rep %s: %d of %d columns are not constant", name, rep, columns.size, p)
    partitions = {**res.partitions, "second_order": res.second_order}
    thresholds = {**res.thresholds, "second_order": res.second_order_threshold}
    remaining = {**res.remaining_edges_pct, "second_order": res.second_order_remaining_edges_pct}
    rows = [
        {
            "network": name,
            "rep": int(rep),
            "partition": key,
            "threshold": thresholds[key],
            "remaining_edges_pct": remaining[key],
            # communities over the kept columns, as indices of the dataset's columns
            **partition_statistics([columns[c].tolist() for c in communities], edges, p),
        }
        for key, communities in partitions.items()
    ]
    frame = pd.DataFrame(rows).assign(**provenance())
    logger.info("%s rep %s:\n%s", name, rep, frame.iloc[:, :8].to_string())
    with atomic_path(statistics) as tmp:
        frame.to_csv(tmp, index=False)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.network,
        snakemake.input.samples,
        snakemake.input.prepared,
        snakemake.output.statistics,
        name=snakemake.wildcards.network,
        rep=snakemake.wildcards.rep,
    )
