"""Global vs LSBN comparison tables of the LSBN paper (Tables VI-XIII and run time).

Outputs: ``reports/lsbn/tables/runs.csv`` (every run) and ``{comparison,precision,recall,
f_score,runtime,table5_aracne_thresholds}.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.lsbn.tables import aracne_threshold_table, comparison_table, metric_summary
from bnstudy.utils import atomic_path

logger = logging.getLogger(__name__)

SUMMARIES = {
    "precision": "Table XI: precision",
    "recall": "Table XII: recall",
    "f_score": "Table XIII: F-score",
    "runtime_s": "run time of the learning call (s)",
}


def main(metrics, runs_csv, comparison, summaries, aracne, *, tau):
    runs = pd.concat([pd.read_csv(f) for f in metrics], ignore_index=True)
    with atomic_path(runs_csv) as tmp:
        runs.to_csv(tmp, index=False)
    write_table(
        aracne_threshold_table(runs, tau),
        *aracne,
        title="LSBN Table V: ARACNE threshold tau (nats) and the edges ARACNE kept",
    )
    write_table(
        comparison_table(runs),
        *comparison,
        title="LSBN Tables VI-X: global vs LSBN, per network",
    )
    for metric, paths in summaries.items():
        write_table(
            metric_summary(runs, metric), *paths, title=f"LSBN {SUMMARIES[metric]}, global vs LSBN"
        )
    logger.info("%d runs", len(runs))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    o = snakemake.output
    main(
        snakemake.input.metrics,
        o.runs,
        (o.comparison_csv, o.comparison_md),
        {
            "precision": (o.precision_csv, o.precision_md),
            "recall": (o.recall_csv, o.recall_md),
            "f_score": (o.f_score_csv, o.f_score_md),
            "runtime_s": (o.runtime_csv, o.runtime_md),
        },
        (o.table5_csv, o.table5_md),
        tau=snakemake.params.tau,
    )
