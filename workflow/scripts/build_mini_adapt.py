"""Build mini-ADAPT (Reed & Mengshoel 2014) from ADAPT's three breaker fragments.

Output: ``resources/networks/mini_adapt.net`` (Hugin format).
"""

import logging

from bnstudy.logs import configure_logging
from bnstudy.networks import load_network, write_net
from bnstudy.studies.em.mini_adapt import build_mini_adapt

logger = logging.getLogger(__name__)


def main(adapt_path: str, dest: str) -> None:
    mini = build_mini_adapt(load_network(adapt_path))
    write_net(mini, dest)
    logger.info("mini-ADAPT: %s", mini.summary())


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(snakemake.input.adapt, snakemake.output.network)
