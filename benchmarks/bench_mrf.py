"""Benchmark: the Dirichlet-process grouping samplers against Liu & Page (2013), Table 1.

Small grid (Sec. 4.2): a 4x4 grid with 5 groups, group values from ``Unif(0, 1)`` and each of the
24 parameters assigned to a random group (as the paper); exact training samples at
``n = 100, 500, 1000``. For each ``n``:

* Gibbs_ExactL for the paper's 100 steps (``--exactl-steps``);
* Gibbs_SBA for the paper's 100 steps;
* MH_AuxVar for ``--mh-steps`` steps (default 20) with the paper's M = 5, sigma_Q = 0.001, S = 100,
  extrapolated linearly to the paper's 500 steps (the start-up, PCD and K-means, is counted once).

Every timed call includes the grouping-blind PCD MLE that starts the chain (the paper's Algorithms 1
and 2 begin with it). Data generation is not timed. Each timing is the median of ``--repeats``
runs with different seeds.

Tree (Sec. 4.1): today's per-run path (the collapsed DP Gibbs sampler, ``--tree-steps`` steps
extrapolated to the paper's 500, then the metrics) beside the blocked sampler run on a block of
``--tree-replicates`` replicates of the height-12 binary tree (8,190 edges, 25 groups, ``n =
--tree-n``) for ``--tree-new-steps`` steps, on the same data; seconds per run and their ratio (the
paper's Fig. 2: 400-460 s per run).

Large grid (Sec. 4.3): Gibbs_SBA on the 30x30 grid (10 groups) for one replicate at
``--sba-n`` (default 1000, the slowest training size) for ``--sba-steps`` steps (default: the
paper's 100; fewer steps are extrapolated). The paper reports "hundreds of minutes" (Fig. 6:
15,000-30,000 s); the target here is under 10 minutes on 2 cores.

Usage::

    .venv/bin/python benchmarks/bench_mrf.py [--ns 100 500 1000] [--repeats 3]
        [--exactl-steps 100] [--mh-steps 20] [--sba-n 1000] [--sba-steps 100] [--skip-mh]
        [--tree-steps 20] [--tree-new-steps 500] [--tree-replicates 5] [--tree-n 1000]
        [--skip-large] [--skip-grids]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from bnstudy.mrf import (
    binary_tree,
    dp_gibbs_tree,
    draw_grouped_parameters,
    gibbs_exactl,
    gibbs_sba,
    grid,
    mean_absolute_error,
    mh_auxvar,
    pcd_mle,
    sample,
    tree_mle,
)
from bnstudy.mrf.metrics import vi_difference
from bnstudy.studies.mrf.experiments import (
    heldout_log_likelihood,
    run_simulation_block,
    simulate_replicate,
)

# Liu & Page (2013), Table 1: run time in seconds on the 4x4 grid.
PAPER_TABLE1 = {
    "gibbs_exactl": {100: 88136.3, 500: 91055.0, 1000: 92503.4},
    "mh_auxvar": {100: 540.2, 500: 3342.2, 1000: 4546.7},
    "gibbs_sba": {100: 8.1, 500: 10.8, 1000: 14.2},
}
PAPER_STEPS = {"gibbs_exactl": 100, "mh_auxvar": 500, "gibbs_sba": 100}


def _small_grid_data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    g = grid(4, 4)
    theta, _ = draw_grouped_parameters(g.n_edges, 5, rng=rng)
    return g, theta, sample(g, theta, n, rng=rng)


def _time_run(sampler, g, X, steps: int, seed: int, **kwargs):
    """Wall seconds of one sampler call, its start-up seconds (PCD + K-means) and its result."""
    t0 = time.perf_counter()
    res = sampler(g, X, n_steps=steps, rng=np.random.default_rng(seed), **kwargs)
    total = time.perf_counter() - t0
    return total, res.init_time, res


def bench_small_grid(ns, repeats: int, exactl_steps: int, mh_steps: int, skip_mh: bool):
    rows = []
    for n in ns:
        for method, steps in (
            ("gibbs_exactl", exactl_steps),
            ("gibbs_sba", PAPER_STEPS["gibbs_sba"]),
            ("mh_auxvar", mh_steps),
        ):
            if method == "mh_auxvar" and skip_mh:
                continue
            sampler = {
                "gibbs_exactl": gibbs_exactl,
                "gibbs_sba": gibbs_sba,
                "mh_auxvar": mh_auxvar,
            }[method]
            totals, extrapolated, maes = [], [], []
            for r in range(repeats):
                g, theta, X = _small_grid_data(n, seed=1000 * r + n)
                total, init, res = _time_run(sampler, g, X, steps, seed=r)
                per_step = (total - init) / steps
                totals.append(total)
                extrapolated.append(init + per_step * PAPER_STEPS[method])
                maes.append(mean_absolute_error(theta, res.theta_mean))
            med = statistics.median(extrapolated)
            paper = PAPER_TABLE1[method][n]
            rows.append(
                (
                    method,
                    n,
                    steps,
                    statistics.median(totals),
                    med,
                    paper,
                    paper / med,
                    statistics.median(maes),
                )
            )
    print("\n4x4 grid, 5 groups (Liu & Page 2013, Table 1); medians over", repeats, "replicates")
    print(
        f"{'method':<14}{'n':>6}{'steps run':>10}{'ours (s)':>11}{'ours @ paper steps':>20}"
        f"{'paper (s)':>12}{'paper/ours':>12}{'MAE':>8}"
    )
    for method, n, steps, total, med, paper, ratio, mae in rows:
        print(
            f"{method:<14}{n:>6}{steps:>10}{total:>11.2f}{med:>20.2f}{paper:>12.1f}"
            f"{ratio:>12.0f}{mae:>8.4f}"
        )
    return rows


def _old_tree_fit(g, rep, n: int, steps: int, seed: int) -> tuple[float, float]:
    """Today's per-run path: collapsed ``dp_gibbs_tree``, then the metrics with ``vi_difference``.

    Returns the CPU seconds of the run (sampler, VI difference, test log-likelihood) and the MAE.
    """
    t0 = time.process_time()
    rng = np.random.default_rng(seed)
    res = dp_gibbs_tree(g, rep.training_set(n), n_steps=steps, rng=rng)
    vi_difference(res.groupings, rep.groups, rng=rng)
    heldout_log_likelihood(g, res.theta_mean, rep.test)
    return time.process_time() - t0, mean_absolute_error(rep.theta, res.theta_mean)


def bench_tree(n: int, steps: int, replicates: int, new_steps: int, seed: int = 3):
    """Today's tree path against the blocked sampler run on a block of replicates, same data.

    Both paths fit the same ``replicates`` data sets (height-12 tree, 25 groups, ``n`` training
    and 1,000 test samples) and compute the same metrics; times are CPU seconds
    (``time.process_time``), which a loaded machine inflates less than wall time. Today's
    collapsed sampler runs ``steps`` and ``2 * steps`` steps per replicate and is extrapolated
    linearly to the paper's 500; the new path runs ``new_steps`` steps (default the paper's 500)
    on all replicates as one block (:func:`run_simulation_block`, one chain per replicate, its own
    seed), extrapolated the same way when ``new_steps < 500``. The random streams differ, so the
    estimates are compared by their error against the truth; the statistical equivalence of the
    two samplers is tested in ``tests/mrf/test_grouping.py``.
    """
    g = binary_tree(12)
    reps = {
        r: simulate_replicate(
            g, n_groups=25, n_train=n, n_test=1000, rng=np.random.default_rng(seed + r)
        )
        for r in range(replicates)
    }
    old_per_run, old_mae = [], []
    for r, rep in reps.items():
        t1, _ = _old_tree_fit(g, rep, n, steps, seed=100 + r)
        t2, mae = _old_tree_fit(g, rep, n, 2 * steps, seed=100 + r)
        old_per_run.append(t1 + (t2 - t1) * (500 - steps) / steps)
        old_mae.append(mae)
    seeds = {(n, r): 100 + r for r in reps}

    def new_block(n_steps):
        t0 = time.process_time()
        rows = run_simulation_block(
            "dp_gibbs_tree",
            g,
            reps,
            [n],
            seeds,
            chains_per_batch=replicates,
            settings={"n_steps": n_steps},
        )
        return (time.process_time() - t0) / replicates, rows

    if new_steps >= 500:
        new_per_run, rows = new_block(500)
    else:
        t1, _ = new_block(new_steps)
        t2, rows = new_block(2 * new_steps)
        new_per_run = t1 + (t2 - t1) * (500 - new_steps) / new_steps
    new_mae = [row["mae"] for row, _ in rows]
    mle_mae = [
        mean_absolute_error(rep.theta, tree_mle(g, rep.training_set(n))) for rep in reps.values()
    ]
    old_med = statistics.median(old_per_run)
    print(f"\nbinary tree, height 12 (8,190 edges), 25 groups, n = {n}, {replicates} replicates")
    print("  CPU seconds per run at the paper's 500 steps, sampler + metrics")
    print(
        f"  today (collapsed, {steps} and {2 * steps} steps run, extrapolated), median: "
        f"{old_med:9.1f} s"
    )
    print(
        f"  new   (blocked, one block of {replicates}, {new_steps} steps run), mean:      "
        f"{new_per_run:9.1f} s   ratio {old_med / new_per_run:.1f}x"
    )
    print(
        f"  MAE median: today {statistics.median(old_mae):.4f} (after {2 * steps} steps), "
        f"new {statistics.median(new_mae):.4f}, grouping-blind MLE "
        f"{statistics.median(mle_mae):.4f}"
    )
    return old_med, new_per_run


def bench_large_grid(n: int, steps: int, seed: int = 7):
    rng = np.random.default_rng(seed)
    g = grid(30, 30)
    theta, _ = draw_grouped_parameters(g.n_edges, 10, rng=rng)
    t0 = time.perf_counter()
    X = sample(g, theta, n, rng=rng, n_sweeps=500)
    t_data = time.perf_counter() - t0
    t0 = time.perf_counter()
    mle = pcd_mle(g, X, rng=rng)
    t_pcd = time.perf_counter() - t0
    res = gibbs_sba(g, X, n_steps=steps, rng=rng, mle=mle)
    per_step = (res.run_time - res.init_time) / steps
    total = t_pcd + res.init_time + per_step * PAPER_STEPS["gibbs_sba"]
    print(f"\n30x30 grid, 10 groups, n = {n}, one replicate (Liu & Page 2013, Sec. 4.3, Fig. 6)")
    print(f"  data generation (500 Gibbs sweeps, not timed below): {t_data:.1f} s")
    print(
        f"  PCD MLE: {t_pcd:.1f} s; Gibbs_SBA {steps} steps: {res.run_time:.1f} s "
        f"({per_step:.2f} s/step)"
    )
    print(
        f"  total at the paper's 100 steps: {total:.1f} s = {total / 60:.1f} min "
        f"(target < 10 min; paper: 15,000-30,000 s, ratio {15000 / total:.0f}-"
        f"{30000 / total:.0f}x)"
    )
    print(
        f"  MAE: MLE {mean_absolute_error(theta, mle):.4f}, "
        f"Gibbs_SBA {mean_absolute_error(theta, res.theta_mean):.4f}; "
        f"groups (last step) {res.n_groups[-1]}"
    )
    return total


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", type=int, nargs="+", default=[100, 500, 1000])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--exactl-steps", type=int, default=100)
    ap.add_argument("--mh-steps", type=int, default=20)
    ap.add_argument("--skip-mh", action="store_true")
    ap.add_argument("--sba-n", type=int, default=1000)
    ap.add_argument("--sba-steps", type=int, default=100)
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--tree-steps", type=int, default=20)
    ap.add_argument("--tree-new-steps", type=int, default=500)
    ap.add_argument("--tree-replicates", type=int, default=5)
    ap.add_argument("--tree-n", type=int, default=1000)
    ap.add_argument("--skip-grids", action="store_true")
    args = ap.parse_args(argv)
    if not args.skip_grids:
        bench_small_grid(args.ns, args.repeats, args.exactl_steps, args.mh_steps, args.skip_mh)
    if args.tree_steps > 0:
        bench_tree(args.tree_n, args.tree_steps, args.tree_replicates, args.tree_new_steps)
    if not args.skip_large:
        bench_large_grid(args.sba_n, args.sba_steps)


if __name__ == "__main__":
    main()
