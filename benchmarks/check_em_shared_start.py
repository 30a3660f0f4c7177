"""Does EM's start of the shared nodes change Table 3? Apart (the paper's code) against tied.

The paper's code, on libDAI, randomizes every factor on its own, so the nodes of a sharing set
start apart and are tied from the first M-step on; the study does the same
(:class:`bnstudy.parameters.ExpectationMaximization`, ``init="random"``). Starting them from one
random table instead, a point of the shared model (``init="random_shared"``), is as natural a
choice, and the paper's text does not say which it made. This script runs Table 3's gradual-sharing
trials (Reed & Mengshoel 2014, Sec. 5.3.2) both ways on the same data, hidden set, sharing
levels and trial seeds, as the ``run_em_sharing`` jobs run them (``config/paper_cpu.yaml``'s
``em`` block, :func:`bnstudy.studies.em.runner.trial_design`,
:func:`bnstudy.studies.em.trials.run_em_trials`), with their own seeds.

Without sharing the two starts are one start, so the no-sharing level's trials must be equal
to the bit (the script exits 1 otherwise). Printed per network and sample size: Table 3's six
Pearson r (n_S against the mean and std over trials of the iterations, the log-likelihood and
the error, over the sharing levels; :func:`bnstudy.studies.em.tables.sharing_table`) for both
starts, with the paper's where it has the row, the count of r with the paper's sign, and the
mean iterations and error over all trials that share.

Usage, from the repository root (``PYTHONPATH=src`` outside the installed environment)::

    python benchmarks/check_em_shared_start.py [--networks pigs adapt] [--ns 25 50 100 200 400]
        [--trials 50] [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from against_ref import DATA_MIRROR

from bnstudy.networks import forward_sample, load_network
from bnstudy.studies.em.runner import job_design, trial_design
from bnstudy.studies.em.tables import sharing_table
from bnstudy.studies.em.trials import EMSettings, run_em_trials

ROOT = Path(__file__).resolve().parents[1]
EM = yaml.safe_load((ROOT / "config" / "paper_cpu.yaml").read_text())["em"]
FILES = {"pigs": "bif/pigs.bif.gz", "adapt": "adapt/adapt10_v7e.net"}
R_COLUMNS = [f"r_{m}_{s}" for m in ("iterations", "loglik", "error") for s in ("mean", "std")]


class TiedStartSettings(EMSettings):
    """The study's EM settings, with the start of :class:`~bnstudy.parameters.ExpectationMaximization`'s
    ``init="random_shared"``: one random table per sharing set."""

    def estimator(self, sharing):  # noqa: D102
        em = super().estimator(sharing)
        em.init = "random_shared"  # checked by fit, as every hyperparameter
        return em


def cell(job: tuple[Path, str, int, int, str]) -> pd.DataFrame:
    """The sharing trials of one network and sample size with one kind of start."""
    data_dir, network, n, trials, start = job
    bn = load_network(data_dir / FILES[network])
    data = forward_sample(bn, n, rng=np.random.default_rng([n, 1]))
    plan = trial_design(bn, job_design("sharing", EM, {"network": network}), seed=2)
    settings = (TiedStartSettings if start == "tied" else EMSettings).from_config(EM)
    frame, _ = run_em_trials(
        bn, data, plan.hidden, plan.levels, n_trials=trials, seed=3, settings=settings
    )
    return frame.assign(network=network, n_samples=n, start=start)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA_MIRROR, help="data mirror with bif/, adapt/")
    ap.add_argument("--networks", nargs="+", choices=sorted(FILES), default=["pigs", "adapt"])
    ap.add_argument("--ns", nargs="+", type=int, default=EM["sharing"]["sample_sizes"])
    ap.add_argument("--trials", type=int, default=EM["sharing"]["trials"])
    ap.add_argument("--jobs", type=int, default=2, help="processes")
    args = ap.parse_args(argv)
    jobs = [
        (args.data.resolve(), net, n, args.trials, start)
        for net in args.networks
        for n in args.ns
        for start in ("apart", "tied")
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        trials = pd.concat(list(pool.map(cell, jobs)), ignore_index=True)
    keys = ["network", "n_samples", "n_shared", "trial"]
    results = [c for c in trials.columns if c not in (*keys, "start", "seconds")]
    tied = trials[trials.start == "tied"].set_index(keys)[results]
    apart = trials[trials.start == "apart"].set_index(keys)[results]
    none = tied.index.get_level_values("n_shared") == 0
    equal = tied[none].equals(apart.loc[tied.index[none]])
    paper = pd.read_csv(ROOT / "workflow/published/em_table3.tsv", sep="\t", comment="#")
    rows = []
    for start, frame in trials.groupby("start", sort=False):
        _, table = sharing_table(frame.drop(columns="start"), paper)
        table = table[table["network"] != ""].assign(start=start)
        shared = frame[frame.n_shared > 0].groupby(["network", "n_samples"])
        table = table.merge(
            shared[["iterations", "error"]].mean().add_prefix("mean_").reset_index(),
            left_on=["network", "n"],
            right_on=["network", "n_samples"],
        )
        rows.append(table)
    paper_rows = rows[0][rows[0]["paper_network"].notna()]
    paper_rows = paper_rows.assign(
        start="paper", **{c: paper_rows[f"{c}_paper"] for c in R_COLUMNS}
    ).assign(same_sign_as_paper="", mean_iterations=float("nan"), mean_error=float("nan"))
    out = pd.concat([*rows, paper_rows], ignore_index=True)
    out = out.sort_values(["network", "n", "start"], kind="stable")
    cols = ["network", "n", "start", *R_COLUMNS, "same_sign_as_paper", "mean_iterations"]
    print(
        f"Table 3 with both starts: {args.trials} trials per level, "
        f"{len(trials)} EM fits; r over the levels that share"
    )
    print(out[[*cols, "mean_error"]].to_markdown(index=False, floatfmt=".3f"))
    print(f"\nno-sharing trials equal to the bit under both starts: {equal}")
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
