"""Benchmark: the tree simulation's fits on this code against an earlier commit, same inputs, one run.

The paper's tree (Sec. 4.1: perfect binary tree of height 12, 8,190 edges, 25 groups) is fitted
the way a job of ``workflow/rules/mrf.smk`` fits it (:func:`bnstudy.studies.mrf.experiments.
run_simulation_block`: the grouping-blind MLE, the oracle MLE and the blocked DP sampler, with
their metrics) by two copies of the library: this checkout's ``src`` and the ``src`` of
``--ref`` (default ``0f26de3``, before agreement counts by packed bits, integer samples checked
by their range and the sampler's sorted group draws), exported with ``git archive``. Each copy
runs in its own process (``PYTHONPATH`` pointing at it), alternating copy by copy for
``--repeats`` rounds so that both see the same machine load. Every run's metrics row and arrays
(estimates, group-count traces) must be equal bit for bit between the copies, or the script
exits 1. Times are the process CPU seconds of each estimator's block; printed are per estimator
the median seconds per run of each copy and the ratio reference / new (> 1: this code is faster).

Usage::

    .venv/bin/python benchmarks/bench_tree_fits.py [--ref 0f26de3] [--replicates 10]
        [--ns 100 1000] [--steps 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from against_ref import block_arrays, report, run_both

ESTIMATORS = ("mle", "oracle", "dp_gibbs_tree")


def child(out: Path, replicates: int, ns: list[int], steps: int) -> None:
    """Fit every estimator on the same simulated replicates; save results and CPU times."""
    from bnstudy.studies.mrf.experiments import (
        run_simulation_block,
        simulate_replicate,
        simulation_graph,
    )

    graph = simulation_graph(height=12)
    rng = np.random.default_rng(12)
    reps = {
        r: simulate_replicate(graph, n_groups=25, n_train=max(ns), n_test=1000, rng=rng)
        for r in range(replicates)
    }
    seeds = {(n, r): 1000 * n + r for n in ns for r in reps}
    arrays, times = {}, {}
    for est in ESTIMATORS:
        settings = (
            {"n_steps": steps, "sampler": "blocked", "truncation": 64}
            if est == "dp_gibbs_tree"
            else {}
        )
        t0 = time.process_time()
        res = run_simulation_block(est, graph, reps, ns, seeds, settings=settings, alpha0=1.0)
        times[est] = (time.process_time() - t0) / len(res)
        arrays |= block_arrays(est, res)
    np.savez(out.with_suffix(".npz"), **arrays)
    out.with_suffix(".json").write_text(json.dumps(times))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref", default="0f26de3")
    ap.add_argument("--replicates", type=int, default=10)
    ap.add_argument("--ns", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.replicates, args.ns, args.steps)
        return 0
    argv = ["--replicates", str(args.replicates), "--steps", str(args.steps)]
    argv += ["--ns", *map(str, args.ns)]
    times, differ, n_arrays = run_both(__file__, argv, args.ref, args.repeats)
    print(
        f"tree, height 12: {args.replicates} replicates x n = {args.ns}, "
        f"{args.steps} sampler steps, {args.repeats} rounds; CPU seconds per run (median)"
    )
    return report(times, ESTIMATORS, args.ref, differ, n_arrays)


if __name__ == "__main__":
    sys.exit(main())
