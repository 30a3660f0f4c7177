"""Our MDL discretization against the TAN authors' released discretization, per fold.

Outputs: ``reports/data/tables/mdl_vs_authors.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.data.build import read_raw_classification
from bnstudy.data.readers import read_bnc
from bnstudy.logs import configure_logging
from bnstudy.report import write_table
from bnstudy.studies.tan.authors import compare_with_authors

logger = logging.getLogger(__name__)


def main(names: list[str], raw_files: dict, authors_files: dict, csv: str, md: str) -> None:
    frames = [
        compare_with_authors(
            name, read_raw_classification(name, raw_files[name]), read_bnc(authors_files[name])
        )
        for name in names
    ]
    write_table(
        pd.concat(frames, ignore_index=True),
        csv,
        md,
        title="MDL discretization: ours against the authors' release",
    )


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    names = snakemake.params.names
    main(
        names,
        {name: snakemake.input[f"raw_{name}"] for name in names},
        {name: snakemake.input[f"authors_{name}"] for name in names},
        snakemake.output.csv,
        snakemake.output.md,
    )
