"""Benchmark: LSBN's LocalLearn runs in one process against the same runs side by side.

For ``--network``, ``--n`` rows are forward-sampled with a fixed seed, and the learner-independent
phases (ROPART and the Markov blankets, :func:`bnstudy.structure.lsbn.prepare`) are computed once
and shared: they do not depend on the number of processes. Then LSBN with ``--method`` as
LocalLearn runs ``--repeats`` times for every process count of ``--jobs`` (interleaved, so a
change of load on the machine hits every count alike), the first count being the reference.

Printed per process count: the median wall seconds of the LSBN call and of its LocalLearn phase,
the ratio of the reference's median to this one (> 1: faster), the median CPU seconds (this
process and its workers) and cores in use (CPU / wall), and whether the learned DAG,
sub-communities and counts are identical to the reference's (they must be). The machine's core
count and load average are printed too: on a shared machine the speed-up is bounded by the cores
actually free, which the "cores" column shows.

Usage::

    .venv/bin/python benchmarks/bench_lsbn_parallel.py [--network win95pts] [--n 5000]
        [--method hill_climb] [--jobs 1 2] [--repeats 3] [--config config/config.yaml]
        [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import yaml

from bnstudy.networks import forward_sample, load_network
from bnstudy.structure.lsbn import LOCAL_LEARNERS, LSBNResult, lsbn, prepare, settings_from_config

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("BNSTUDY_DATA_MIRROR", ROOT.parent / "shared" / "data"))
SEED = 20240601


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished child processes (the workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _same(a: LSBNResult, b: LSBNResult) -> bool:
    """The same learned structure, sampling and counts (timings aside)."""
    return (
        np.array_equal(a.adjacency, b.adjacency)
        and np.array_equal(a.skeleton, b.skeleton)
        and a.subcommunities == b.subcommunities
        and (a.n_conflicts, a.n_relearned, a.n_local_calls)
        == (b.n_conflicts, b.n_relearned, b.n_local_calls)
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", default="win95pts")
    parser.add_argument("--n", type=int, default=5000, help="forward samples")
    parser.add_argument("--method", default="hill_climb", choices=LOCAL_LEARNERS)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="process counts")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data mirror (with bif/)")
    args = parser.parse_args(argv)
    if args.repeats < 1 or min(args.jobs) < 1:
        parser.error("--repeats and every --jobs value must be at least 1")

    settings = settings_from_config(yaml.safe_load(args.config.read_text())["lsbn"])
    bn = load_network(args.data / "bif" / f"{args.network}.bif.gz")
    x = forward_sample(bn, args.n, rng=np.random.default_rng(SEED))
    t0 = time.perf_counter()
    prepared = prepare(x, **settings)
    print(
        f"LSBN with {args.method} on {args.network} ({len(bn.nodes)} variables, {args.n} rows, "
        f"seed {SEED}), settings of {args.config.name}; shared phases once "
        f"({time.perf_counter() - t0:.1f} s, not timed below)\n"
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start",
        flush=True,
    )
    wall: dict[int, list[float]] = {j: [] for j in args.jobs}
    local: dict[int, list[float]] = {j: [] for j in args.jobs}
    cpu: dict[int, list[float]] = {j: [] for j in args.jobs}
    results: dict[int, LSBNResult] = {}
    for _ in range(args.repeats):
        for jobs in args.jobs:
            t, c = time.perf_counter(), _cpu_seconds()
            res = lsbn(
                x,
                local_learner=args.method,
                rng=np.random.default_rng(SEED),
                prepared=prepared,
                n_jobs=jobs,
                **settings,
            )
            wall[jobs].append(time.perf_counter() - t)
            cpu[jobs].append(_cpu_seconds() - c)
            local[jobs].append(res.timings["local_learn"])
            results.setdefault(jobs, res)
    ref = args.jobs[0]
    res = results[ref]
    print(
        f"{len(res.subcommunities)} sub-communities, {res.n_local_calls} LocalLearn runs, "
        f"{res.n_conflicts} conflicts, {res.n_relearned} re-learned; {args.repeats} repeats, "
        f"load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(
        f"{'processes':>9} {'median s':>9} {'LocalLearn s':>12} {f'ratio vs {ref}':>11} "
        f"{'CPU s':>7} {'cores':>5} {'identical':>9}  all runs (s)"
    )
    t_ref = float(np.median(wall[ref]))
    for jobs in args.jobs:
        med = float(np.median(wall[jobs]))
        runs = " ".join(f"{s:.1f}" for s in wall[jobs])
        cores = np.median(np.array(cpu[jobs]) / np.array(wall[jobs]))
        print(
            f"{jobs:>9} {med:>9.1f} {float(np.median(local[jobs])):>12.1f} "
            f"{t_ref / med:>10.2f}x {float(np.median(cpu[jobs])):>7.1f} {cores:>5.2f} "
            f"{'yes' if _same(results[jobs], res) else 'NO':>9}  {runs}",
            flush=True,
        )


if __name__ == "__main__":
    main()
