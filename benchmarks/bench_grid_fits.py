"""Benchmark: a grid's data and fits on this code against an earlier commit, same inputs.

The paper's large grid (Sec. 4.3: 30x30, 1,740 edges, 10 groups) is simulated and fitted the way
the jobs of ``workflow/rules/mrf.smk`` do it (:func:`bnstudy.studies.mrf.experiments.
simulate_replicate`, then :func:`~bnstudy.studies.mrf.experiments.run_simulation_block` for the
grouping-blind MLE, the oracle MLE and Gibbs_SBA started from that MLE, with their metrics and
``config/paper_cpu.yaml``'s PCD settings) by two copies of the library: this checkout's ``src``
and the ``src`` of ``--ref`` (default ``4a67afb``, where every colour class of the blocked-Gibbs
kernel took a sparse product and an ``exp`` per node and chain), exported with ``git archive``.
All of them run on blocked-Gibbs sweeps: the data's chains, PCD's 500 particles, and Gibbs_SBA's
tied PCD refits in every step. Each copy runs in its own process (``PYTHONPATH`` pointing at it),
alternating copy by copy for ``--repeats`` rounds so that both see the same machine load. The
samples and every run's metrics row and arrays (estimates, group-count traces) must be equal bit
for bit between the copies, or the script exits 1. Times are process CPU seconds: the simulation
of one replicate, and per estimator the median seconds per run of each copy; printed with the
ratio reference / new (> 1: this code is faster). ``--simulation small_grid`` runs the paper's
small grid (Sec. 4.2: 4x4, 24 edges, 5 groups) instead, with the config's five estimators
(Gibbs_ExactL and MH_AuxVar too, each at ``--steps`` steps); the grid's side and groups, and the
samplers' settings, are those of ``config/paper_cpu.yaml``.

Usage::

    .venv/bin/python benchmarks/bench_grid_fits.py [--ref 4a67afb] [--replicates 1]
        [--ns 1000] [--sweeps 200] [--steps 10] [--repeats 3] [--simulation large_grid]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import yaml
from against_ref import block_arrays, report, run_both, through_file

CONFIG = Path(__file__).resolve().parents[1] / "config" / "paper_cpu.yaml"
# config/paper_cpu.yaml's mrf: alpha0, burn-in fraction and PCD settings
COMMON = {
    "alpha0": 1.0,
    "burn_in_fraction": 0.0,
    "pcd": {"n_iter": 1000, "n_particles": 500, "learning_rate": 1.0, "step_iter": 50},
}


def grid_spec(simulation: str) -> tuple[int, int]:
    """``(side, n_groups)`` of a grid simulation of ``config/paper_cpu.yaml``."""
    cfg = yaml.safe_load(CONFIG.read_text())["mrf"][simulation]
    return cfg["side"], cfg["n_groups"]


def estimators(simulation: str, steps: int) -> dict[str, dict]:
    """The estimators of a grid simulation of ``config/paper_cpu.yaml`` and their settings, the
    samplers at ``steps`` steps (MLE first: the samplers start from it)."""
    cfg = yaml.safe_load(CONFIG.read_text())["mrf"][simulation]
    out = {}
    for est in cfg["estimators"]:
        settings = dict(cfg.get(est, {}))
        if "n_steps" in settings:
            settings["n_steps"] = steps
        out[est] = settings
    return out


def child(out: Path, replicates: int, ns: list[int], sweeps: int, steps: int, sim: str) -> None:
    """Simulate the replicates, fit every estimator on them; save results and CPU times."""
    from bnstudy.studies.mrf.experiments import (
        run_simulation_block,
        simulate_replicate,
        simulation_graph,
    )

    side, groups = grid_spec(sim)
    graph = simulation_graph(side=side)
    rng = np.random.default_rng(side)
    t0 = time.process_time()
    reps = {
        r: simulate_replicate(
            graph, n_groups=groups, n_train=max(ns), n_test=1000, rng=rng, gibbs_sweeps=sweeps
        )
        for r in range(replicates)
    }
    reps = through_file(reps)
    times = {"simulate": (time.process_time() - t0) / replicates}
    arrays = {f"data/{r}": np.r_[rep.train, rep.test] for r, rep in reps.items()}
    seeds = {(n, r): 1000 * n + r for n in ns for r in reps}
    mles = None
    for est, settings in estimators(sim, steps).items():
        t0 = time.process_time()
        res = run_simulation_block(
            est, graph, reps, ns, seeds, mles=mles, settings=settings, **COMMON
        )
        times[est] = (time.process_time() - t0) / len(res)
        if est == "mle":
            mles = {(row["n"], row["rep"]): arr["theta"] for row, arr in res}
        arrays |= block_arrays(est, res)
    np.savez(out.with_suffix(".npz"), **arrays)
    out.with_suffix(".json").write_text(json.dumps(times))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref", default="4a67afb")
    ap.add_argument("--replicates", type=int, default=1)
    ap.add_argument("--ns", type=int, nargs="+", default=[1000])
    ap.add_argument("--sweeps", type=int, default=200, help="Gibbs sweeps of the data's chains")
    ap.add_argument("--steps", type=int, default=10, help="sampler steps (Gibbs_SBA: 100)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--simulation", choices=["large_grid", "small_grid"], default="large_grid")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.replicates, args.ns, args.sweeps, args.steps, args.simulation)
        return 0
    argv = ["--replicates", str(args.replicates), "--sweeps", str(args.sweeps)]
    argv += ["--steps", str(args.steps), "--ns", *map(str, args.ns)]
    argv += ["--simulation", args.simulation]
    times, differ, n_arrays = run_both(__file__, argv, args.ref, args.repeats)
    side, groups = grid_spec(args.simulation)
    print(
        f"{side}x{side} grid, {groups} groups: {args.replicates} replicates x n = {args.ns}, "
        f"data by {args.sweeps} sweeps, PCD 1000 iterations, samplers {args.steps} steps, "
        f"{args.repeats} rounds; "
        "CPU seconds per replicate (simulate) and per run (median)"
    )
    keys = ("simulate", *estimators(args.simulation, args.steps))
    return report(times, keys, args.ref, differ, n_arrays)


if __name__ == "__main__":
    sys.exit(main())
