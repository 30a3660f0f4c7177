"""Table 4 of Reed & Mengshoel (2014) on our mini-ADAPT, the error-metric check (O_C vs 16.325),
and where the trials of Figs. 3-4 end (error regions).

Outputs: ``reports/em/tables/table4_mini_adapt.{csv,md}``, ``error_metrics.{csv,md}`` and
``error_regions.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.em.tables import error_metric_table, error_regions_table, mini_adapt_table

logger = logging.getLogger(__name__)


def main(trial_files, published, csv, md, metrics_csv, metrics_md, regions_csv, regions_md) -> None:
    trials = pd.concat([pd.read_csv(f) for f in trial_files], ignore_index=True)
    paper = pd.read_csv(published, sep="\t", comment="#")
    write_table(mini_adapt_table(trials, paper), csv, md, title="Table 4: mini-ADAPT")
    paper_complete = paper.query("sharing == 'none' and observables == 'O_C'")["error_mean"].item()
    write_table(
        error_metric_table(trials, paper_complete),
        metrics_csv,
        metrics_md,
        title="Which error metric is the paper's? Complete data (O_C) beside the printed 16.325",
    )
    write_table(
        error_regions_table(trials),
        regions_csv,
        regions_md,
        title="Figs. 3-4: where mini-ADAPT's EM trials end, per observable set and sharing",
    )
    logger.info("Table 4 from %d trials", len(trials))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        list(snakemake.input.trials),
        snakemake.input.published,
        snakemake.output.csv,
        snakemake.output.md,
        snakemake.output.metrics_csv,
        snakemake.output.metrics_md,
        snakemake.output.regions_csv,
        snakemake.output.regions_md,
    )
