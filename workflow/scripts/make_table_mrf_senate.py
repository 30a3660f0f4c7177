"""Table 2 of Liu & Page (2013): Senate log pseudo-likelihoods of MLE (PCD) and Gibbs_SBA.

Outputs: ``reports/mrf/tables/table2_senate.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.mrf.tables import senate_table

logger = logging.getLogger(__name__)


def main(run_files, published, csv, md):
    runs = pd.concat([pd.read_csv(f) for f in run_files], ignore_index=True)
    table = senate_table(runs, pd.read_csv(published, sep="\t", comment="#"))
    write_table(table, csv, md, title="Table 2: US Senate, 109th Congress", digits=2)
    logger.info("Table 2 from %d runs", len(runs))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        list(snakemake.input.runs),
        snakemake.input.published,
        snakemake.output.csv,
        snakemake.output.md,
    )
