"""Chow-Liu recovery (Roth & Pernkopf 2020, Sec. 5): how often lambda = 0 learns the Chow-Liu tree.

Outputs: ``reports/tan/tables/chow_liu_recovery.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table

logger = logging.getLogger(__name__)


def main(run_files, csv, md):
    runs = pd.concat([pd.read_csv(f) for f in run_files], ignore_index=True)
    summary = runs.groupby(["dataset", "lr"], as_index=False).agg(
        runs=("recovered", "size"),
        recovered=("recovered", "sum"),
        mean_parents_differing=("parents_differing", "mean"),
    )
    write_table(summary, csv, md, title="Chow-Liu recovery with the generative loss (lambda = 0)")


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(list(snakemake.input.runs), snakemake.output.csv, snakemake.output.md)
