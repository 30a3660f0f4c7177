"""ROPART tables of the LSBN paper: Table I (thresholds), II-III (partition quality and ranks),
IV (community sizes, beside the text's numbers).

Outputs: ``reports/lsbn/tables/{table1_thresholds,table2_3_partition_quality,
partition_ranks,table4_community_sizes}.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.lsbn.tables import (
    community_size_table,
    partition_quality_table,
    threshold_table,
)

logger = logging.getLogger(__name__)


def main(statistics, published_sizes, published_ranks, out):
    stats = pd.concat([pd.read_csv(f) for f in statistics], ignore_index=True)
    write_table(
        threshold_table(stats),
        *out["table1"],
        title="LSBN Table I: truncation thresholds and remaining edges (%)",
    )
    quality, ranks = partition_quality_table(
        stats, pd.read_csv(published_ranks, sep="\t", comment="#")
    )
    write_table(
        quality, *out["table2_3"], title="LSBN Tables II-III: average shortest path and diameter"
    )
    write_table(ranks, *out["ranks"], title="LSBN Tables II-III: mean rank of every partition")
    sizes = community_size_table(stats, pd.read_csv(published_sizes, sep="\t", comment="#"))
    write_table(sizes, *out["table4"], title="LSBN Table IV: second-order community sizes")
    logger.info("community sizes:\n%s", sizes.to_string())


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    o = snakemake.output
    main(
        snakemake.input.statistics,
        snakemake.input.published_sizes,
        snakemake.input.published_ranks,
        {
            "table1": (o.table1_csv, o.table1_md),
            "table2_3": (o.table2_3_csv, o.table2_3_md),
            "ranks": (o.ranks_csv, o.ranks_md),
            "table4": (o.table4_csv, o.table4_md),
        },
    )
