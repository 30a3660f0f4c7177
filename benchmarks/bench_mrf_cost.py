"""Cost of the mrf branch of a config: measured seconds per run, times the runs of each job.

For every simulation and estimator of ``config[mrf]`` it times one replicate's runs at the smallest
and the largest training size with the config's settings (samplers: ``--steps`` and twice as many
steps, extrapolated linearly to the configured number; the tree's blocked sampler runs
``--tree-chains`` replicates as one block, as a job does), interpolates linearly in ``n`` for the
sizes between, and prints per estimator the seconds per run, per job (one block of replicates,
every size) and the core-hours of all its jobs; the data simulation likewise (``gibbs_sweeps``
extrapolated from ``--sweeps``). Job counts follow ``workflow/rules/mrf.smk`` (blocks of
``replicates_per_job``). Timings are CPU seconds of this process (`time.process_time`), so that a loaded machine does
not inflate them; one core per job.

Usage::

    .venv/bin/python benchmarks/bench_mrf_cost.py [--config config/paper.yaml] [--steps 3]
        [--tree-chains 5] [--sweeps 20] [--only tree small_grid large_grid]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import yaml

from bnstudy.mrf import sample
from bnstudy.mrf.grouping import draw_grouped_parameters
from bnstudy.studies.mrf.experiments import (
    fit_estimator,
    run_simulation_block,
    run_simulation_fit,
    simulate_replicate,
    simulation_graph,
)

# workflow/rules/mrf.smk: replicates per job unless the config sets replicates_per_job
REPLICATES_PER_JOB = {"tree": 50, "small_grid": 5, "large_grid": 5}
FROM_MLE = ("gibbs_exactl", "mh_auxvar", "gibbs_sba")


def _graph(cfg):
    return simulation_graph(
        **({"height": cfg["height"]} if "height" in cfg else {"side": cfg["side"]})
    )


def time_simulation(cfg, sweeps: int) -> float:
    """Seconds to simulate one replicate (Gibbs sweeps extrapolated linearly)."""
    g = _graph(cfg)
    n_total = max(cfg["sample_sizes"]) + cfg["n_test"]
    full = int(cfg.get("gibbs_sweeps", 0))
    rng = np.random.default_rng(0)
    t0 = time.process_time()
    theta, _ = draw_grouped_parameters(g.n_edges, cfg["n_groups"], rng=rng)
    run = min(sweeps, full) if full else 0
    sample(g, theta, n_total, rng=rng, n_sweeps=max(run, 1))
    sec = time.process_time() - t0
    return sec * full / run if full and run else sec


def _time_once(sim, cfg, mrf, estimator, n, reps, settings, chains) -> float:
    g = _graph(cfg)
    common = {k: mrf[k] for k in ("alpha0", "burn_in_fraction", "pcd")}
    mle = None
    if estimator in FROM_MLE:
        mle = fit_estimator(
            "mle", g, reps[0].training_set(n), rng=np.random.default_rng(1), pcd=mrf["pcd"]
        ).theta
    t0 = time.process_time()
    if estimator == "dp_gibbs_tree":
        seeds = {(n, r): r for r in reps}
        run_simulation_block(
            estimator, g, reps, [n], seeds, chains_per_batch=chains, settings=settings, **common
        )
    else:
        run_simulation_fit(
            estimator,
            g,
            reps[0],
            n,
            rng=np.random.default_rng(2),
            settings=settings,
            mle=mle,
            **common,
        )
    return (time.process_time() - t0) / len(reps)


def time_runs(sim, cfg, mrf, estimator, n, steps: int, chains: int) -> float:
    """CPU seconds per run of one estimator at training size n.

    Samplers run ``steps`` and ``2 * steps`` steps; the configured number is extrapolated
    linearly from the two (start-up and metrics included).
    """
    g = _graph(cfg)
    reps = {
        r: simulate_replicate(
            g,
            n_groups=cfg["n_groups"],
            n_train=n,
            n_test=cfg["n_test"],
            rng=np.random.default_rng(r),
            gibbs_sweeps=min(int(cfg.get("gibbs_sweeps", 0)) or 1, 50),
        )
        for r in range(chains if estimator == "dp_gibbs_tree" else 1)
    }
    settings = dict(cfg.get(estimator, {}))
    full = int(settings.get("n_steps", 0))
    if not full:
        return _time_once(sim, cfg, mrf, estimator, n, reps, settings, chains)
    s1, s2 = min(steps, full), min(2 * steps, full)
    t1 = _time_once(sim, cfg, mrf, estimator, n, reps, settings | {"n_steps": s1}, chains)
    if s2 == s1:
        return t1
    t2 = _time_once(sim, cfg, mrf, estimator, n, reps, settings | {"n_steps": s2}, chains)
    return t1 + (t2 - t1) * (full - s1) / (s2 - s1)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="config/paper.yaml")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--tree-chains", type=int, default=5)
    ap.add_argument("--sweeps", type=int, default=20)
    ap.add_argument("--only", nargs="+", default=["tree", "small_grid", "large_grid"])
    args = ap.parse_args(argv)
    with open(args.config) as fh:
        mrf = yaml.safe_load(fh)["mrf"]
    total = 0.0
    print(
        f"{'simulation':<12}{'estimator':<16}{'s/run n_min':>12}{'s/run n_max':>12}"
        f"{'jobs':>6}{'s/job':>10}{'core-h':>9}"
    )
    for sim in args.only:
        cfg = mrf[sim]
        ns = cfg["sample_sizes"]
        per_job = int(cfg.get("replicates_per_job", REPLICATES_PER_JOB[sim]))
        blocks = math.ceil(cfg["replicates"] / per_job)
        sec = time_simulation(cfg, args.sweeps)
        hours = blocks * per_job * sec / 3600
        total += hours
        print(
            f"{sim:<12}{'(simulate)':<16}{sec:>12.2f}{'':>12}{blocks:>6}{per_job * sec:>10.0f}"
            f"{hours:>9.2f}"
        )
        for est in cfg["estimators"]:
            lo, hi = min(ns), max(ns)
            t_lo = time_runs(sim, cfg, mrf, est, lo, args.steps, args.tree_chains)
            t_hi = (
                t_lo
                if hi == lo
                else time_runs(sim, cfg, mrf, est, hi, args.steps, args.tree_chains)
            )
            per_n = [t_lo + (t_hi - t_lo) * (n - lo) / max(hi - lo, 1) for n in ns]
            job = per_job * sum(per_n)
            hours = blocks * job / 3600
            total += hours
            print(
                f"{sim:<12}{est:<16}{t_lo:>12.2f}{t_hi:>12.2f}{blocks:>6}{job:>10.0f}{hours:>9.2f}",
                flush=True,
            )
    print(f"total: {total:.2f} core-hours (simulations and fits; Senate and tables not included)")


if __name__ == "__main__":
    main()
