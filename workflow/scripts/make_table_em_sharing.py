"""Table 3 of Reed & Mengshoel (2014): Pearson r of the metrics' mean/std with the number of shared nodes.

Outputs: the per-level summary CSV and ``reports/em/tables/table3_sharing_correlations.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_csv, write_table
from bnstudy.studies.em.tables import sharing_table

logger = logging.getLogger(__name__)


def main(trial_files: list[str], published: str, summary: str, csv: str, md: str) -> None:
    trials = pd.concat([pd.read_csv(f) for f in trial_files], ignore_index=True)
    levels, table = sharing_table(trials, pd.read_csv(published, sep="\t", comment="#"))
    write_csv(levels, summary)
    write_table(table, csv, md, title="Table 3: Pearson r with the number of shared nodes")
    logger.info("Table 3 from %d trials", len(trials))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        list(snakemake.input.trials),
        snakemake.input.published,
        snakemake.output.summary,
        snakemake.output.csv,
        snakemake.output.md,
    )
