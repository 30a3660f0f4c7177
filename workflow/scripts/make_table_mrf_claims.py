"""Liu & Page (2013): the paper's claims checked on our runs, in the claims contract.

With the archived paper-scale verdict, value and notes beside each claim (none in a run at
that scale itself). Outputs: ``reports/mrf/tables/claims.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.claims import read_catalog, tally
from bnstudy.studies.mrf.claims import paper_claims
from bnstudy.studies.scorecard import with_archived_claims

logger = logging.getLogger(__name__)


def main(summary, runtime, senate, catalog, scale, archived, archive_scale, csv, md) -> None:
    claims = paper_claims(
        read_catalog(catalog, "mrf"),
        pd.read_csv(summary),
        pd.read_csv(runtime),
        pd.read_csv(senate),
        scale=scale,
    )
    claims = with_archived_claims(claims, "mrf", archived, archive_scale)
    write_table(
        claims, csv, md, title="Liu & Page (2013): the paper's claims on our runs", digits=4
    )
    logger.info("%s", tally(claims["verdict"]))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.summary,
        snakemake.input.runtime,
        snakemake.input.senate,
        snakemake.input.catalog,
        snakemake.params.scale,
        snakemake.input.archived,
        snakemake.params.archive_scale,
        snakemake.output.csv,
        snakemake.output.md,
    )
