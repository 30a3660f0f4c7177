"""Write the config this run uses, exactly as the rules see it, as YAML.

The config of a run is one file (``--configfile``, else ``config/config.yaml``) plus any
``--config key=value`` overrides; this is what came out, so a test (and a user) can compare it with
the file. Output: ``results/config/effective.yaml`` and its provenance sidecar.
"""

import logging

import yaml

from bnstudy.logs import configure_logging
from bnstudy.provenance import write_sidecar
from bnstudy.utils import atomic_path

logger = logging.getLogger(__name__)


def main(config, source, dest):
    write_sidecar(dest)
    with atomic_path(dest) as tmp:
        tmp.write_text(
            f"# The effective config of this run, from {source}.\n"
            + yaml.safe_dump(config, sort_keys=False, default_flow_style=None, width=100)
        )
    logger.info("effective config from %s written to %s", source, dest)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(dict(snakemake.params.config), snakemake.params.source, snakemake.output[0])
