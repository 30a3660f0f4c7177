"""Benchmark: the Gibbs kernel's field tables against its sparse product, by colour-class size.

:class:`bnstudy.mrf.sampling.BlockGibbsSampler` updates a colour class either from a table of
``1 + exp(-field)`` per node and neighbour pattern, rebuilt at every change of the weights, or by
a sparse product and ``exp`` per node and chain; both give the same states bit for bit. On a large
class the table wins; on a small one its rebuild, at every PCD iteration, costs more than the
``exp`` it saves. The kernel takes tables only for classes of at least
:data:`~bnstudy.mrf.sampling.TABLE_MIN_NODES` nodes; this script measures where the crossover is.

For each grid side in ``--sides`` (a ``side x side`` grid has two classes of ``side^2 / 2``
nodes), a :class:`~bnstudy.mrf.mle.PersistentContrastiveDivergence` fit (``--n-iter``
iterations, ``--particles`` chains, 10 groups of parameters, ``--n`` exact or Gibbs samples) runs
with every class on tables and with every class on the sparse product, alternating
``--repeats`` times on the same data and seed. Printed: median CPU seconds per iteration of each,
and the ratio sparse / tables (> 1: tables are faster). The estimates, the particles and the
gradient traces must be identical, or the script exits 1.

Usage::

    .venv/bin/python benchmarks/bench_table_threshold.py [--sides 4 6 8 12 16 30] [--n-iter 200]
        [--particles 500] [--n 1000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import bnstudy.mrf.sampling as sampling
from bnstudy.mrf import draw_grouped_parameters, grid, sample
from bnstudy.mrf.mle import PersistentContrastiveDivergence

#: TABLE_MIN_NODES that puts every class on tables, or every class on the sparse product.
MODES = {"tables": 0, "sparse": 10**9}


def fit(g, X, mode: str, args) -> tuple[float, PersistentContrastiveDivergence]:
    """CPU seconds per iteration of one PCD fit with every class in ``mode``, and the fit."""
    saved = sampling.TABLE_MIN_NODES
    sampling.TABLE_MIN_NODES = MODES[mode]
    try:
        est = PersistentContrastiveDivergence(
            g, n_iter=args.n_iter, n_particles=args.particles, learning_rate=1.0
        )
        t0 = time.process_time()
        est.fit(X, rng=np.random.default_rng(args.seed))
        return (time.process_time() - t0) / args.n_iter, est
    finally:
        sampling.TABLE_MIN_NODES = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sides", type=int, nargs="+", default=[4, 6, 8, 12, 16, 30])
    parser.add_argument("--n-iter", type=int, default=200)
    parser.add_argument("--particles", type=int, default=500)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(
        f"PCD fits, {args.n_iter} iterations, {args.particles} particles, {args.repeats} repeats; "
        f"TABLE_MIN_NODES = {sampling.TABLE_MIN_NODES} in the library"
    )
    print(
        f"{'grid':>6} {'class nodes':>12} {'tables s/iter':>14} {'sparse s/iter':>14} "
        f"{'sparse/tables':>14} {'library uses':>13}"
    )
    ok = True
    for side in args.sides:
        g = grid(side, side)
        rng = np.random.default_rng([args.seed, side])
        theta, _ = draw_grouped_parameters(g.n_edges, 10, rng=rng)
        X = sample(g, theta, args.n, rng=rng, n_sweeps=200)
        times = {mode: [] for mode in MODES}
        fits = {}
        for _ in range(args.repeats):  # alternate, so both see the same machine load
            for mode in MODES:
                seconds, fits[mode] = fit(g, X, mode, args)
                times[mode].append(seconds)
        a, b = fits["tables"], fits["sparse"]
        same = (
            np.array_equal(a.theta_, b.theta_)
            and np.array_equal(a.particles_, b.particles_)
            and np.array_equal(a.gradient_norm_trace_, b.gradient_norm_trace_)
        )
        ok &= same
        med = {mode: statistics.median(t) for mode, t in times.items()}
        size = min(len(nodes) for nodes in g.colouring)
        uses = "tables" if size >= sampling.TABLE_MIN_NODES else "sparse"
        print(
            f"{side:>3}x{side:<2} {size:>12} {med['tables']:>14.6f} {med['sparse']:>14.6f} "
            f"{med['sparse'] / med['tables']:>13.2f}x {uses:>13}"
            + ("" if same else "  RESULTS DIFFER")
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
