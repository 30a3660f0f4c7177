"""Fetch one raw file of the registry (mirror, bundled copy or URL) and verify its checksum.

Output: the raw file at ``snakemake.output[0]``, written only once its payload's sha256 matches.
"""

import logging

from bnstudy.data.fetch import fetch_raw_file
from bnstudy.logs import configure_logging

logger = logging.getLogger(__name__)


def main(rawpath: str, dest: str, mirror: str | None, download: bool) -> None:
    source = fetch_raw_file(rawpath, dest, mirror=mirror, download=download)
    logger.info("%s verified, from %s", rawpath, source)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.wildcards.rawpath,
        snakemake.output[0],
        snakemake.params.mirror,
        snakemake.params.download,
    )
