"""Fetch one raw file of the registry (mirror, bundled copy or URL) and verify its checksum.

Output: the raw file at ``snakemake.output[0]``, written only once its payload's sha256 matches.

Where to look (config ``data.mirror``, else ``$BNSTUDY_DATA_MIRROR``; config ``data.download``) is
read here, not passed as ``params``: the source of a file is not part of what the file is, so moving
or unsetting the mirror reruns nothing whose files are already verified.
"""

import logging
import os
from pathlib import Path

from bnstudy.data.fetch import fetch_raw_file
from bnstudy.logs import configure_logging

logger = logging.getLogger(__name__)


def main(rawpath: str, dest: str, mirror: str | None, download: bool) -> None:
    source = fetch_raw_file(rawpath, dest, mirror=mirror, download=download)
    logger.info("%s verified, from %s", rawpath, source)


def data_mirror(data_config: dict) -> str | None:
    """The offline mirror: config ``data.mirror``, else ``$BNSTUDY_DATA_MIRROR``, else None."""
    mirror = data_config.get("mirror") or os.environ.get("BNSTUDY_DATA_MIRROR")
    return str(Path(mirror).resolve()) if mirror else None


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.wildcards.rawpath,
        snakemake.output[0],
        data_mirror(snakemake.config["data"]),
        bool(snakemake.config["data"]["download"]),
    )
