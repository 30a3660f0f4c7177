"""The EM paper's statements about its results, each checked on ours.

Outputs: ``reports/em/tables/claims.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.em.tables import paper_claims

logger = logging.getLogger(__name__)


def main(table3: str, table4: str, metrics: str, csv: str, md: str) -> None:
    claims = paper_claims(
        pd.read_csv(table3, keep_default_na=False, na_values=[""]).fillna({"network": ""}),
        pd.read_csv(table4),
        pd.read_csv(metrics),
    )
    write_table(claims, csv, md, title="Reed & Mengshoel (2014): the paper's claims on our runs")
    logger.info("%d of %d claims agree", int(claims["agrees"].sum()), len(claims))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.table3,
        snakemake.input.table4,
        snakemake.input.metrics,
        snakemake.output.csv,
        snakemake.output.md,
    )
