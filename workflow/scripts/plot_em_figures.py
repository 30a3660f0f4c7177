"""Figures 2-6 of Reed & Mengshoel (2014) from our EM trials (plots only; no fitting here).

Outputs: ``reports/em/figures/fig{2..6}_*.png``.
"""

import logging

import numpy as np
import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.plotting import save_figure
from bnstudy.studies.em.figures import error_histograms, loglik_error_paths, sharing_trends

logger = logging.getLogger(__name__)


def _by_level(trials_csv, traces_npz, levels):
    """Traces of the trials at each requested number of shared nodes ("max" = all hidden shared)."""
    trials = pd.read_csv(trials_csv)
    traces = np.load(traces_npz)
    out = {}
    for label, level in levels.items():
        n_shared = trials["n_shared"].max() if level == "max" else level
        rows = (trials["n_shared"] == n_shared).to_numpy()
        out[label.format(n=n_shared)] = (traces["loglik"][rows], traces["error"][rows])
    return out


def main(inp, out, figures, seed):
    rng = np.random.default_rng(seed)
    network, n = figures["network"], figures["n_samples"]
    levels = pd.read_csv(inp["sharing"]).query("network == @network and n_samples == @n")
    title = f"{network}, {n} samples (in place of the paper's ADAPT T2)"
    save_figure(sharing_trends(levels, title=title), out["fig2"])

    mini = {}
    for trials_csv, traces_npz in zip(inp["mini_trials"], inp["mini_traces"], strict=True):
        trials = pd.read_csv(trials_csv)
        if trials["observables"].iloc[0] == "O_C":
            continue
        observables, sharing = trials["observables"].iloc[0], trials["sharing"].iloc[0]
        traces = np.load(traces_npz)
        mini[(observables, sharing != "none", f"{observables}, sharing {sharing}")] = (
            traces["loglik"],
            traces["error"],
            trials["error"].to_numpy(),
        )
    order = sorted(mini)  # by observables, no sharing first
    paths = {k[2]: mini[k][:2] for k in order}
    save_figure(loglik_error_paths(paths, n_paths=figures["paths"], rng=rng), out["fig3"])
    hists = {k[2]: mini[k][2] for k in order}
    save_figure(error_histograms(hists, bins=figures["bins"]), out["fig4"])

    both = {"no sharing": 0, "{n} nodes shared": "max"}
    fig5 = _by_level(inp["paths_trials"], inp["paths_traces"], both)
    save_figure(loglik_error_paths(fig5, n_paths=figures["paths"], rng=rng), out["fig5"])
    fig6 = _by_level(inp["endpoints"][0], inp["endpoints"][1], both)
    save_figure(loglik_error_paths(fig6, n_paths=figures["paths"], rng=rng), out["fig6"])
    logger.info("EM figures written")


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(snakemake.input, snakemake.output, snakemake.params.figures, snakemake.params.seed)
