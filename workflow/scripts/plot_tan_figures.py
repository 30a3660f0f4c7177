"""Figures 2 and 3a-d of Roth & Pernkopf (2020) from the tidy runs table (plots only).

Outputs: ``reports/tan/figures/fig2_runs.png`` and ``fig3_settings.png``.
"""

import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.plotting import save_figure
from bnstudy.studies.tan.figures import errors_by_group, errors_by_model
from bnstudy.studies.tan.protocol import TABLE1_MODELS

logger = logging.getLogger(__name__)


def main(runs_csv, datasets, fig2, fig3, seed):
    runs = pd.read_csv(runs_csv)
    test = runs[runs["protocol"] == "test"]
    per_setting = test.groupby(["dataset", "model", "spec"], as_index=False).agg(
        error=("error", "mean"),
        ordering=("ordering", "first"),
        K=("K", "first"),
        draw=("draw", "first"),
    )
    save_figure(errors_by_model(per_setting, datasets, TABLE1_MODELS, seed=seed), fig2)
    heuristic = per_setting[per_setting["model"] == "tan_heuristic"]
    subset = per_setting[per_setting["model"] == "tan_subset"]
    image = (
        "mnist"
        if (heuristic["dataset"] == "mnist").any()
        else heuristic["dataset"].iloc[0]
        if len(heuristic)
        else None
    )
    panels = {}
    if image is not None:
        panels[f"(a) TAN Heuristic orderings, {image}"] = (
            heuristic[heuristic["dataset"] == image],
            "ordering",
        )
        panels[f"(b) TAN Heuristic K, {image}"] = (heuristic[heuristic["dataset"] == image], "K")
    sat = subset[(subset["dataset"] == "bnc_satimage") & (subset["K"] == subset["K"].max())]
    if len(sat):
        panels[f"(c) TAN Subset orderings, satimage, K={int(sat['K'].max())}"] = (sat, "ordering")
    let = subset[subset["dataset"] == "bnc_letter"]
    for k in sorted({let["K"].min(), let["K"].max()} - {float("nan")}) if len(let) else []:
        panels[f"(d) TAN Subset parent draws, letter, K={int(k)}"] = (let[let["K"] == k], "draw")
    save_figure(errors_by_group(panels, seed=seed), fig3)
    logger.info("TAN figures written (%d panels in Figure 3)", len(panels))


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.runs,
        snakemake.params.datasets,
        snakemake.output.fig2,
        snakemake.output.fig3,
        snakemake.params.seed,
    )
