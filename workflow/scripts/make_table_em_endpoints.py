"""Figs. 5 and 6 of Reed & Mengshoel (2014) as a table: where the EM trials end, no sharing vs all
hidden nodes shared (the error's range and lowest value, the log-likelihoods).

Outputs: ``reports/em/tables/endpoints.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.em.tables import endpoints_table

logger = logging.getLogger(__name__)


def main(fig5: str, fig6: str, csv: str, md: str) -> None:
    table = endpoints_table({"Fig. 5": pd.read_csv(fig5), "Fig. 6": pd.read_csv(fig6)})
    write_table(table, csv, md, title="Figs. 5-6: EM trials' ends, no sharing vs all shared")
    logger.info("endpoints of %d arms", len(table))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.fig5,
        snakemake.input.fig6,
        snakemake.output.csv,
        snakemake.output.md,
    )
