"""Benchmark: the tree simulation's fits on this code against an earlier commit, same inputs, one run.

The paper's tree (Sec. 4.1: perfect binary tree of height 12, 8,190 edges, 25 groups) is
simulated and fitted the way the jobs of ``workflow/rules/mrf.smk`` do it (samples drawn,
written to a block file and read back, :func:`bnstudy.studies.mrf.experiments.save_replicates`
and ``load_replicates``; then :func:`~bnstudy.studies.mrf.experiments.run_simulation_block`: the
grouping-blind MLE, the oracle MLE and the blocked DP sampler, with their metrics) by two copies
of the library: this checkout's ``src`` and the ``src`` of ``--ref`` (default ``0f26de3``, before
agreement counts by packed bits, integer samples checked by their range and the sampler's sorted
group draws; ``4a67afb`` is the code before bit-packed block files), exported with ``git
archive``. Each copy runs in its own process (``PYTHONPATH`` pointing at it), alternating copy by
copy for ``--repeats`` rounds so that both see the same machine load. The samples read back and
every run's metrics row and arrays (estimates, group-count traces) must be equal bit for bit
between the copies, or the script exits 1. Times are process CPU seconds: per replicate for the
simulation, per run for each estimator's block; printed are the medians of each copy and the
ratio reference / new (> 1: this code is faster).

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
from against_ref import block_arrays, report, run_both, through_file

ESTIMATORS = ("mle", "oracle", "dp_gibbs_tree")
KEYS = ("simulate", *ESTIMATORS)


def child(out: Path, replicates: int, ns: list[int], steps: int) -> None:
    """Fit every estimator on the same simulated replicates; save results and CPU times."""
    from bnstudy.studies.mrf.experiments import (
        run_simulation_block,
        simulate_replicate,
        simulation_graph,
    )

    graph = simulation_graph(height=12)
    rng = np.random.default_rng(12)
    t0 = time.process_time()
    reps = {
        r: simulate_replicate(graph, n_groups=25, n_train=max(ns), n_test=1000, rng=rng)
        for r in range(replicates)
    }
    reps = through_file(reps)
    times = {"simulate": (time.process_time() - t0) / replicates}
    arrays = {f"data/{r}": np.r_[rep.train, rep.test] for r, rep in reps.items()}
    seeds = {(n, r): 1000 * n + r for n in ns for r in reps}
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
        f"{args.steps} sampler steps, {args.repeats} rounds; CPU seconds per replicate "
        "(simulate: drawn, written to a block file and read back) and per run (median)"
    )
    return report(times, KEYS, args.ref, differ, n_arrays)


if __name__ == "__main__":
    sys.exit(main())
