"""Table 1 of Roth & Pernkopf (2020) and the settings each selection chose.

Outputs: ``reports/tan/tables/{table1,selected_settings}.{csv,md}`` and the tidy
``results/tan/runs.csv`` (one row per dataset, model, setting, fold and protocol).
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.tan.protocol import select_settings, table1
from bnstudy.utils import atomic_path

logger = logging.getLogger(__name__)


def main(run_files, published, datasets, protocols, out) -> None:
    runs = pd.concat([pd.read_csv(f) for f in run_files], ignore_index=True)
    with atomic_path(out["runs"]) as tmp:
        runs.to_csv(tmp, index=False)
    selected = select_settings(runs)
    paper = pd.read_csv(published, sep="\t", comment="#")
    validation = "validation" in protocols
    title = "Table 1: test error [%], best setting by test error (the paper's)"
    title += " and by validation" if validation else "; validation protocol not run in this config"
    write_table(
        table1(selected, datasets, paper, validation=validation),
        out["csv"],
        out["md"],
        title=title,
        digits=2,
    )
    write_table(
        selected, out["selected_csv"], out["selected_md"], title="Selected settings", digits=4
    )
    logger.info("Table 1 from %d runs", len(runs))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        list(snakemake.input.runs),
        snakemake.input.published,
        snakemake.params.datasets,
        snakemake.params.protocols,
        snakemake.output,
    )
