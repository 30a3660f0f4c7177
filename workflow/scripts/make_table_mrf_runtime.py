"""Table 1 of Liu & Page (2013): run times of the Bayesian estimators on the small grid.

Outputs: ``reports/mrf/tables/table1_runtime.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.mrf.tables import runtime_table

logger = logging.getLogger(__name__)


def main(runs, published, csv, md):
    table = runtime_table(pd.read_csv(runs), pd.read_csv(published, sep="\t", comment="#"))
    write_table(table, csv, md, title="Table 1: run time (seconds) on the small grid", digits=2)
    logger.info("Table 1: %d rows", len(table))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(snakemake.input.runs, snakemake.input.published, snakemake.output.csv, snakemake.output.md)
