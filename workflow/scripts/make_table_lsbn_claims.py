"""LSBN: the paper's claims checked on our runs, in the claims contract.

Reads the comparison runs and the ROPART Tables I-IV. With the archived paper-scale verdict,
value and notes beside each claim (none in a run at that scale itself). Outputs:
``reports/lsbn/tables/claims.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.claims import read_catalog, tally
from bnstudy.studies.lsbn.claims import paper_claims
from bnstudy.studies.scorecard import with_archived_claims

logger = logging.getLogger(__name__)


def main(
    runs, thresholds, quality, sizes, catalog, scale, archived, archive_scale, csv, md
) -> None:
    claims = paper_claims(
        read_catalog(catalog, "lsbn"),
        pd.read_csv(runs),
        scale=scale,
        thresholds=pd.read_csv(thresholds),
        quality=pd.read_csv(quality),
        sizes=pd.read_csv(sizes),
    )
    claims = with_archived_claims(claims, "lsbn", archived, archive_scale)
    write_table(claims, csv, md, title="LSBN: the paper's claims on our runs")
    logger.info("%s", tally(claims["verdict"]))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.runs,
        snakemake.input.thresholds,
        snakemake.input.quality,
        snakemake.input.sizes,
        snakemake.input.catalog,
        snakemake.params.scale,
        snakemake.input.archived,
        snakemake.params.archive_scale,
        snakemake.output.csv,
        snakemake.output.md,
    )
