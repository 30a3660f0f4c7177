"""Chow-Liu recovery (Roth & Pernkopf 2020, Sec. 5): how often lambda = 0 learns the Chow-Liu tree.

One row per dataset and learning rate: runs (folds x roots), how many recovered the Chow-Liu tree
of their training rows exactly, the parents that differed (mean and largest), the total CMI of
the learned structure as a fraction of the Chow-Liu tree's (mean and smallest), and whether that
target is also the tree of the authors' MI graph in every run.

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
        features=("features", "first"),
        n_train=("n_train", "first"),
        epochs=("epochs", "first"),
        runs=("recovered", "size"),
        recovered=("recovered", "sum"),
        mean_parents_differing=("parents_differing", "mean"),
        max_parents_differing=("parents_differing", "max"),
        mean_cmi_fraction=("cmi_fraction", "mean"),
        min_cmi_fraction=("cmi_fraction", "min"),
        target_is_authors_tree=("target_is_authors_tree", "all"),
    )
    for row in summary.itertuples():
        logger.info(
            "%s lr %g: recovered %d of %d, CMI fraction >= %.4f",
            row.dataset,
            row.lr,
            row.recovered,
            row.runs,
            row.min_cmi_fraction,
        )
    write_table(
        summary,
        csv,
        md,
        title="Chow-Liu recovery with the generative loss (lambda = 0)",
        digits=4,
    )


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(list(snakemake.input.runs), snakemake.output.csv, snakemake.output.md)
