"""Benchmark: MH_AuxVar with exact auxiliary samples against Gibbs particles, same inputs.

Liu & Page (2013), Sec. 4.2: the 4x4 grid (24 edges) with 5 groups, MH_AuxVar with the paper's
M = 5, sigma_Q = 0.001 and S = 100, the exchange ratio (as ``config/paper.yaml``). For each
replicate and training size ``n`` both variants start from the same data, the same grouping-blind
PCD MLE and the same seed:

* ``gibbs``: each auxiliary draw is ``--particle-sweeps`` (10) warm-started blocked-Gibbs sweeps of
  ``n`` chains (the paper's approximation, and the study's code before exact particles);
* ``exact``: exact, independent draws from the 2^15 enumerated half-space states
  (:class:`bnstudy.mrf.exact.EnumeratedAgreements`); a move of the grouping draws one Binomial.

Printed per ``n``: the median CPU seconds per MH step of each variant and their ratio, and, over
the replicates, the mean absolute error of the posterior mean against the true parameters, the
exact test log-likelihood per sample (1,000 test samples) and the mean group count, with paired
t-tests of the differences: the two chains target the same posterior, so the estimates should not
differ beyond what the Gibbs approximation changes. CPU time (``time.process_time``) so that a
loaded machine inflates neither; the start-up (MLE, K-means) is not timed.

Usage::

    .venv/bin/python benchmarks/bench_mh_auxvar.py [--ns 100 1000] [--replicates 10]
        [--steps 30] [--particle-sweeps 10] [--pcd-iter 1000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from scipy import stats

from bnstudy.mrf import (
    draw_grouped_parameters,
    grid,
    log_likelihood,
    mean_absolute_error,
    sample_enumeration,
)
from bnstudy.mrf.grouping import mh_auxvar
from bnstudy.mrf.mle import pcd_mle

VARIANTS = ("gibbs", "exact")


def run_replicate(n: int, rep: int, args) -> dict[str, dict[str, float]]:
    """Both variants on one replicate: seconds per step, MAE, test log-likelihood, group count."""
    g = grid(4, 4)
    rng = np.random.default_rng([rep, n])
    theta, _ = draw_grouped_parameters(g.n_edges, 5, rng=rng)
    X = sample_enumeration(g, theta, n + 1000, rng=rng)
    train, test = X[:n], X[n:]
    pcd = {"n_iter": args.pcd_iter, "n_particles": 500, "learning_rate": 1.0}
    mle = pcd_mle(g, train, rng=np.random.default_rng([rep, n, 1]), **pcd)
    out = {}
    for particles in VARIANTS:
        t0 = time.process_time()
        res = mh_auxvar(
            g,
            train,
            n_steps=args.steps,
            rng=np.random.default_rng([rep, n, 2]),
            n_proposals=5,
            sigma_q=0.001,
            n_phi_steps=100,
            particle_sweeps=args.particle_sweeps,
            auxiliary="exchange",
            particles=particles,
            mle=mle,
            pcd_params=pcd,
        )
        seconds = time.process_time() - t0
        out[particles] = {
            "step_s": seconds / args.steps,
            "mae": mean_absolute_error(theta, res.theta_mean),
            "test_ll": log_likelihood(g, res.theta_mean, test) / test.shape[0],
            "groups": float(np.mean(res.n_groups)),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--replicates", type=int, default=10)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--particle-sweeps", type=int, default=10)
    parser.add_argument("--pcd-iter", type=int, default=1000)
    args = parser.parse_args(argv)
    print(
        f"MH_AuxVar (exchange, M=5, S=100) on the 4x4 grid, {args.steps} steps, "
        f"{args.replicates} replicates; gibbs = {args.particle_sweeps} sweeps per draw"
    )
    for n in args.ns:
        runs = [run_replicate(n, rep, args) for rep in range(args.replicates)]
        col = {v: {k: np.array([r[v][k] for r in runs]) for k in runs[0][v]} for v in VARIANTS}
        g_step = statistics.median(col["gibbs"]["step_s"])
        e_step = statistics.median(col["exact"]["step_s"])
        print(
            f"\nn = {n}: CPU s per step (median): gibbs {g_step:.4f}, exact {e_step:.4f}, "
            f"ratio {g_step / e_step:.1f}x; per run of the paper's 500 steps: "
            f"gibbs {500 * g_step:.1f} s, exact {500 * e_step:.1f} s"
        )
        for key, label in [
            ("mae", "MAE vs truth"),
            ("test_ll", "test log-lik/sample"),
            ("groups", "mean group count"),
        ]:
            a, b = col["gibbs"][key], col["exact"][key]
            p = stats.ttest_rel(a, b).pvalue if args.replicates > 1 else float("nan")
            print(
                f"  {label:<20} gibbs {a.mean():.4f}  exact {b.mean():.4f}  "
                f"difference {np.mean(b - a):+.4f}  paired t-test p = {p:.2f}"
            )


if __name__ == "__main__":
    main()
