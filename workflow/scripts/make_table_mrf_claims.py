"""The MRF paper's statements about its results, each checked on ours.

Outputs: ``reports/mrf/tables/claims.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.mrf.tables import paper_claims

logger = logging.getLogger(__name__)


def main(summary, runtime, senate, csv, md):
    claims = paper_claims(pd.read_csv(summary), pd.read_csv(runtime), pd.read_csv(senate))
    write_table(
        claims, csv, md, title="Liu & Page (2013): the paper's claims on our runs", digits=4
    )
    logger.info("%s", claims["verdict"].value_counts().to_dict())


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.summary,
        snakemake.input.runtime,
        snakemake.input.senate,
        snakemake.output.csv,
        snakemake.output.md,
    )
