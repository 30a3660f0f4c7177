"""Table of every prepared dataset: sizes, features, classes, states per feature, checksums.

Outputs: ``reports/data/tables/datasets.{csv,md}``.
"""

import logging

from bnstudy.data.summary import summarize_datasets
from bnstudy.logs import configure_logging
from bnstudy.report import write_table

logger = logging.getLogger(__name__)


def main(names: list[str], prepared: list[str], raw_root: str, csv: str, md: str) -> None:
    frame = summarize_datasets(dict(zip(names, prepared, strict=True)), raw_root)
    write_table(frame, csv, md, title="Prepared datasets")
    logger.info("summarized %d datasets", len(frame))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.params.names,
        list(snakemake.input.datasets),
        snakemake.params.raw_root,
        snakemake.output.csv,
        snakemake.output.md,
    )
