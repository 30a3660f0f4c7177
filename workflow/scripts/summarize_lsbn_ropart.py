"""ROPART on one sampled dataset: thresholds, remaining edges and partition statistics.

Output: ``statistics.csv``, one row per partition (each weight function, then ``second_order``):
truncation threshold and remaining-edge share (Table I), average shortest path and diameter in
the true network (Tables II-III) and the community sizes (Table IV).
"""

import logging

import pandas as pd

from bnstudy.data.integrity import load_verified_npz
from bnstudy.logs import configure_logging
from bnstudy.networks import load_network
from bnstudy.structure.ropart import partition_statistics, ropart
from bnstudy.utils import atomic_path, provenance

logger = logging.getLogger(__name__)


def main(network, samples, statistics, *, name, rep, settings):
    bn = load_network(network)
    data = load_verified_npz(samples)
    index = {str(v): i for i, v in enumerate(data["nodes"])}
    edges = [(index[u], index[v]) for u, v in bn.edges]
    p = len(index)
    res = ropart(
        data["samples"],
        methods=settings["weight_functions"],
        bins=settings["bins"],
        second_order_threshold=settings["second_order_threshold"],
    )
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
            **partition_statistics(communities, edges, p),
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
        snakemake.output.statistics,
        name=snakemake.wildcards.network,
        rep=snakemake.wildcards.rep,
        settings=snakemake.params.settings,
    )
