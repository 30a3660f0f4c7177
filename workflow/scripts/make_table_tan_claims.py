"""Roth & Pernkopf (2020): the paper's claims checked on our runs, in the claims contract.

With the archived paper-scale verdict, value and notes beside each claim (none in a run at
that scale itself). Outputs: ``reports/tan/tables/claims.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.claims import read_catalog, tally
from bnstudy.studies.scorecard import with_archived_claims
from bnstudy.studies.tan.claims import paper_claims

logger = logging.getLogger(__name__)


def main(
    selected: str,
    runs: str,
    recovery: str,
    catalog: str,
    scale: str,
    archived,
    archive_scale: str,
    csv: str,
    md: str,
) -> None:
    claims = paper_claims(
        read_catalog(catalog, "tan"),
        pd.read_csv(selected),
        pd.read_csv(runs),
        pd.read_csv(recovery),
        scale=scale,
    )
    claims = with_archived_claims(claims, "tan", archived, archive_scale)
    write_table(claims, csv, md, title="Roth & Pernkopf (2020): the paper's claims on our runs")
    logger.info("%s", tally(claims["verdict"]))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.selected,
        snakemake.input.runs,
        snakemake.input.recovery,
        snakemake.input.catalog,
        snakemake.params.scale,
        snakemake.input.archived,
        snakemake.params.archive_scale,
        snakemake.output.csv,
        snakemake.output.md,
    )
