"""Table of every benchmark network beside the values printed in the papers.

Outputs: ``reports/networks/tables/networks.{csv,md}``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.networks import load_network
from bnstudy.report import compare_with_published, write_table

logger = logging.getLogger(__name__)


def main(names: list[str], paths: list[str], published: str, csv: str, md: str) -> None:
    ours = pd.DataFrame(
        [
            {**load_network(path).summary(), "network": name}
            for name, path in zip(names, paths, strict=True)
        ]
    )
    frame = compare_with_published(ours, pd.read_csv(published, sep="\t"), key="network")
    write_table(frame, csv, md, title="Benchmark networks")
    logger.info("summarized %d networks", len(ours))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.params.names,
        list(snakemake.input.networks),
        snakemake.input.published,
        snakemake.output.csv,
        snakemake.output.md,
    )
