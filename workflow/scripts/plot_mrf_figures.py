"""Figures 1-6 of Liu & Page (2013) from our runs (plots only; no fitting here).

Outputs: ``reports/mrf/figures/fig{1..6}_*.png``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.plotting import save_figure
from bnstudy.studies.mrf.figures import paper_figures

logger = logging.getLogger(__name__)


def main(runs: str, out) -> None:
    for name, fig in paper_figures(pd.read_csv(runs)).items():
        save_figure(fig, out[name])
    logger.info("MRF figures written")


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(snakemake.input.runs, snakemake.output)
