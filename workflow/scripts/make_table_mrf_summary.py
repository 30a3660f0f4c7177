"""All simulation runs of Liu & Page (2013) in one tidy table, and their means over replicates.

Inputs: the per-run metrics of every block of replicates. Outputs: ``reports/mrf/tables/runs.csv``
(one row per simulation, estimator, n and replicate) and
``reports/mrf/tables/summary.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_csv, write_table
from bnstudy.studies.mrf.tables import concat_runs, summarize_runs

logger = logging.getLogger(__name__)


def main(run_files, runs_csv, csv, md):
    runs = concat_runs([pd.read_csv(f) for f in run_files])
    write_csv(runs, runs_csv)
    summary = summarize_runs(runs)
    write_table(summary, csv, md, title="Simulations: mean and sd over replicates", digits=4)
    logger.info("%d runs, %d summary rows", len(runs), len(summary))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        list(snakemake.input.runs),
        snakemake.output.runs,
        snakemake.output.csv,
        snakemake.output.md,
    )
