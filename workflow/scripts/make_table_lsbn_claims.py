"""The LSBN paper's statements about its results, each checked on ours.

Outputs: ``reports/lsbn/tables/claims.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.lsbn.tables import paper_claims

logger = logging.getLogger(__name__)


def main(runs, csv, md):
    claims = paper_claims(pd.read_csv(runs))
    write_table(claims, csv, md, title="LSBN: the paper's claims on our runs")
    logger.info("%d of %d claims agree", int((claims["agrees"] == "yes").sum()), len(claims))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(snakemake.input.runs, snakemake.output.csv, snakemake.output.md)
