"""Reed & Mengshoel (2014): the paper's claims checked on our runs, in the claims contract.

With the archived paper-scale verdict, value and notes beside each claim (none in a run at
that scale itself). Outputs: ``reports/em/tables/claims.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.claims import read_catalog, tally
from bnstudy.studies.em.claims import paper_claims
from bnstudy.studies.scorecard import with_archived_claims

logger = logging.getLogger(__name__)


def main(
    table3,
    table4,
    metrics,
    endpoints,
    regions,
    paper3,
    catalog,
    scale,
    archived,
    archive_scale,
    csv,
    md,
) -> None:
    claims = paper_claims(
        read_catalog(catalog, "em"),
        pd.read_csv(table3, keep_default_na=False, na_values=[""]).fillna({"network": ""}),
        pd.read_csv(table4),
        pd.read_csv(metrics),
        pd.read_csv(paper3, sep="\t", comment="#"),
        pd.read_csv(endpoints),
        pd.read_csv(regions),
        scale=scale,
    )
    claims = with_archived_claims(claims, "em", archived, archive_scale)
    write_table(claims, csv, md, title="Reed & Mengshoel (2014): the paper's claims on our runs")
    logger.info("%s", tally(claims["verdict"]))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.table3,
        snakemake.input.table4,
        snakemake.input.metrics,
        snakemake.input.endpoints,
        snakemake.input.regions,
        snakemake.input.paper3,
        snakemake.input.catalog,
        snakemake.params.scale,
        snakemake.input.archived,
        snakemake.params.archive_scale,
        snakemake.output.csv,
        snakemake.output.md,
    )
