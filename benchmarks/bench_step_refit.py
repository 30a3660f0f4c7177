"""Benchmark: the samplers' per-step PCD refit at fewer iterations, same inputs, paired.

Gibbs_SBA (Liu & Page 2013, Algorithm 2) and MH_AuxVar refit the tied PCD estimate under the
current grouping at every step, warm-started (particles and values persist between steps):
``pcd.step_iter`` iterations (50 in the configs before this benchmark). The paper gives no PCD settings. This
script runs the sampler with the reference count (``--ref``, default 50) and with each count of
``--iters`` on the same data, the same grouping-blind PCD MLE and the same seed, and prints per
training size ``n``:

* the median CPU seconds per step of each count, and the ratio reference / candidate;
* over the replicates, the mean absolute error of the posterior mean against the true
  parameters, the test log pseudo-likelihood per sample (``--graph grid30``; the exact test
  log-likelihood on the 4x4 grid) and the mean group count, with paired t-tests of each
  candidate against the reference. The grouping-blind MLE's error is printed for scale.

Graphs and samplers (the study's settings of ``config/paper.yaml``):

``grid30``
    The 30x30 grid (Sec. 4.3: 1,740 edges, 10 groups); data are the final states of independent
    blocked-Gibbs chains (``--sweeps``, 1,000 as the study); Gibbs_SBA for ``--steps`` steps
    (the paper's 100).
``grid4``
    The 4x4 grid (Sec. 4.2: 24 edges, 5 groups, exact samples); Gibbs_SBA (100 steps) and
    MH_AuxVar (exchange, exact particles, M = 5, sigma_Q = 0.001, S = 100; ``--steps`` steps).

CPU time (``time.process_time``), so that a loaded machine inflates neither; the start-up (data,
MLE) is not timed.

Usage::

    .venv/bin/python benchmarks/bench_step_refit.py [--graph grid30|grid4] [--ns 100 1000]
        [--replicates 10] [--steps 100] [--ref 50] [--iters 25 10] [--sweeps 1000]
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
    log_pseudo_likelihood,
    mean_absolute_error,
    sample,
)
from bnstudy.mrf.grouping import gibbs_sba, mh_auxvar
from bnstudy.mrf.mle import pcd_mle

PCD = {"n_iter": 1000, "n_particles": 500, "learning_rate": 1.0}


def _samplers(graph_name: str, steps: int) -> dict:
    if graph_name == "grid30":
        return {"gibbs_sba": (gibbs_sba, {"n_steps": steps})}
    return {
        "gibbs_sba": (gibbs_sba, {"n_steps": 100}),
        "mh_auxvar": (
            mh_auxvar,
            {
                "n_steps": steps,
                "n_proposals": 5,
                "sigma_q": 0.001,
                "n_phi_steps": 100,
                "auxiliary": "exchange",
                "particles": "exact",
            },
        ),
    }


def run_replicate(rep: int, args) -> dict:
    """Every sampler and refit count on one replicate, at every training size."""
    side, n_groups = (30, 10) if args.graph == "grid30" else (4, 5)
    g = grid(side, side)
    rng = np.random.default_rng([rep, side])
    theta, _ = draw_grouped_parameters(g.n_edges, n_groups, rng=rng)
    X = sample(g, theta, max(args.ns) + 1000, rng=rng, n_sweeps=args.sweeps)
    test = X[max(args.ns) :]
    score = log_pseudo_likelihood if args.graph == "grid30" else log_likelihood
    out = {}
    for n in args.ns:
        train = X[:n]
        mle = pcd_mle(g, train, rng=np.random.default_rng([rep, n, 1]), **PCD)
        out[n, "mle"] = mean_absolute_error(theta, mle)
        for name, (sampler, settings) in _samplers(args.graph, args.steps).items():
            for it in [args.ref, *args.iters]:
                t0 = time.process_time()
                res = sampler(
                    g,
                    train,
                    rng=np.random.default_rng([rep, n, 2]),
                    mle=mle,
                    pcd_params=PCD,
                    step_pcd_iter=it,
                    **settings,
                )
                out[n, name, it] = {
                    "step_s": (time.process_time() - t0) / settings["n_steps"],
                    "mae": mean_absolute_error(theta, res.theta_mean),
                    "test": score(g, res.theta_mean, test) / test.shape[0],
                    "groups": float(np.mean(res.n_groups)),
                }
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", choices=["grid30", "grid4"], default="grid30")
    parser.add_argument("--ns", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--replicates", type=int, default=10)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--ref", type=int, default=50)
    parser.add_argument("--iters", type=int, nargs="+", default=[25, 10])
    parser.add_argument("--sweeps", type=int, default=1000)
    args = parser.parse_args(argv)
    print(
        f"per-step PCD refit: {args.ref} iterations against {args.iters}; {args.graph}, "
        f"{args.replicates} replicates, {args.steps} steps"
    )
    runs = [run_replicate(rep, args) for rep in range(args.replicates)]
    test_label = "test LPL/sample" if args.graph == "grid30" else "test LL/sample"
    for n in args.ns:
        mle_mae = np.mean([r[n, "mle"] for r in runs])
        print(f"\nn = {n} (grouping-blind MLE: MAE {mle_mae:.4f})")
        for name in _samplers(args.graph, args.steps):
            ref = {
                k: np.array([r[n, name, args.ref][k] for r in runs])
                for k in runs[0][n, name, args.ref]
            }
            r_step = statistics.median(ref["step_s"])
            print(f"  {name}: {args.ref} iterations: {r_step:.4f} CPU s per step")
            for it in args.iters:
                cand = {k: np.array([r[n, name, it][k] for r in runs]) for k in ref}
                c_step = statistics.median(cand["step_s"])
                print(f"    {it} iterations: {c_step:.4f} s per step, {r_step / c_step:.2f}x")
                for key, label in [
                    ("mae", "MAE vs truth"),
                    ("test", test_label),
                    ("groups", "mean groups"),
                ]:
                    a, b = ref[key], cand[key]
                    p = stats.ttest_rel(a, b).pvalue if args.replicates > 1 else float("nan")
                    print(
                        f"      {label:<16} {args.ref}: {a.mean():.4f}  {it}: {b.mean():.4f}  "
                        f"difference {np.mean(b - a):+.4f}  paired t-test p = {p:.2f}"
                    )


if __name__ == "__main__":
    main()
