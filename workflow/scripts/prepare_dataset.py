"""Parse, discretize and cache one dataset.

Output: ``resources/datasets/<name>.npz`` (see bnstudy.data.build.prepare_dataset for the format).
"""

import logging

from bnstudy.data.build import prepare_dataset
from bnstudy.logs import configure_logging

logger = logging.getLogger(__name__)


def main(name: str, raw_files: list[str], dest: str, senate: dict, mdl: dict) -> None:
    prepare_dataset(
        name,
        raw_files,
        dest,
        min_yeas=senate["min_yeas"],
        max_yeas=senate["max_yeas"],
        cut_selection=mdl["cut_selection"],
        mnist_resize=mdl["mnist_resize"],
        mnist_order=mdl["mnist_order"],
    )
    logger.info("prepared %s -> %s", name, dest)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.wildcards.dataset,
        list(snakemake.input),
        snakemake.output[0],
        snakemake.params.senate,
        snakemake.params.mdl,
    )
