"""Benchmark: the blocked-Gibbs kernel against its previous implementation, same inputs, one run.

:class:`bnstudy.mrf.sampling.BlockGibbsSampler` (``sweep``, ``agreement_counts``, ``init_state``)
is timed beside :class:`_ReferenceGibbsSampler`, a private copy of the implementation it replaced
(a plain ``np.where`` sweep, agreement counts by an ``einsum`` over gathered rows, states started
from data in Fortran order). Both run on the same graph, weights, states and seeds, alternating
call by call so that both see the same machine load; every output is checked bit for bit
(``np.array_equal`` on states, counts and estimates, equal random-generator states). Times are
process CPU seconds by default (``--clock wall`` for wall seconds), which a loaded machine inflates
less than wall time; printed are medians, quartiles and the ratio reference / new (> 1: the new
code is faster).

Cases
-----
kernel
    The ``--size`` x ``--size`` grid (default 30x30: 900 nodes, 1,740 edges), ``--n-chains``
    chains (default 500, PCD's particles), weights drawn once; ``--calls`` calls of each. Timed
    are ``sweep`` (one sweep per call, the state carried on) and ``agreement_counts``, on a
    uniformly started (C-ordered) state and on a state started from data rows by each
    implementation's ``init_state`` (what PCD runs on; the reference's is in Fortran order, which
    costs it a copy of the state in every sparse product).
pcd
    A full :class:`bnstudy.mrf.mle.PersistentContrastiveDivergence` fit (``--n-iter`` iterations,
    500 particles) on ``--n`` samples of the grid with 10 groups of parameters (Gibbs data, not
    timed), with the kernel and with the reference kernel, ``--pcd-repeats`` fits of each; the
    estimates, particles and gradient traces must be identical.

Usage::

    .venv/bin/python benchmarks/bench_gibbs_kernel.py [--size 30] [--n-chains 500]
        [--calls 200] [--n 1000] [--n-iter 200] [--pcd-repeats 5] [--clock cpu|wall]
        [--seed 0] [--skip-pcd]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from functools import partial

import numpy as np
import scipy

from bnstudy.mrf import draw_grouped_parameters, grid, sample
from bnstudy.mrf.mle import PersistentContrastiveDivergence
from bnstudy.mrf.sampling import BlockGibbsSampler


class _ReferenceGibbsSampler(BlockGibbsSampler):
    """The previous kernel (before the in-place sweep and the bit-count agreement counts)."""

    def init_state(self, n_chains, *, rng, X=None):
        p = self.graph.n_nodes
        if X is None:
            return 2.0 * rng.integers(0, 2, size=(p, int(n_chains))) - 1.0
        X = np.asarray(X)
        rows = np.resize(np.arange(X.shape[0]), int(n_chains))
        return 2.0 * X[rows].T.astype(np.float64) - 1.0

    def sweep(self, state, *, rng, n_sweeps=1):
        for _ in range(int(n_sweeps)):
            for nodes, mat, _ in self._blocks:
                field = mat @ state
                u = rng.random(field.shape)
                up = u * (1.0 + np.exp(-np.clip(field, -60.0, 60.0))) < 1.0
                state[nodes] = np.where(up, 1.0, -1.0)
        return state

    def agreement_counts(self, state):
        u, v = self.graph.edges[:, 0], self.graph.edges[:, 1]
        prod = np.einsum("ij,ij->i", state[u], state[v])
        return 0.5 * (prod + state.shape[1])


def _same_rng(a: np.random.Generator, b: np.random.Generator) -> bool:
    return a.bit_generator.state == b.bit_generator.state


def _interleaved(ref_fn, new_fn, calls: int, clock) -> tuple[list[float], list[float], list]:
    """Seconds of ``calls`` calls of each function, alternating (ref, new), (new, ref), ...

    (:func:`timing.median_time` times the calls of one function back to back, by wall clock; here
    the two implementations alternate call by call so that both see the same machine load.)
    Returns both lists of times and the last result of each.
    """
    times: tuple[list[float], list[float]] = ([], [])
    results: list = [None, None]
    fns = (ref_fn, new_fn)
    for c in range(calls):
        for which in (0, 1) if c % 2 == 0 else (1, 0):
            t0 = clock()
            results[which] = fns[which]()
            times[which].append(clock() - t0)
    return times[0], times[1], results


def _report(label: str, ref: list[float], new: list[float], unit: float, unit_name: str) -> float:
    r, n = statistics.median(ref), statistics.median(new)
    q = [np.quantile(t, [0.25, 0.75]) * unit for t in (ref, new)]
    print(
        f"  {label:<38}{r * unit:>10.3f}{n * unit:>10.3f} {unit_name:<3}{r / n:>8.2f}x"
        f"   (quartiles: ref {q[0][0]:.3f}-{q[0][1]:.3f}, new {q[1][0]:.3f}-{q[1][1]:.3f})"
    )
    return r / n


def _header(clock_name: str) -> None:
    print(f"  {'':<38}{'reference':>10}{'new':>10}{'':4}{'ratio':>8}   ({clock_name} time)")


def bench_kernel(size: int, n_chains: int, calls: int, seed: int, clock, clock_name: str) -> dict:
    g = grid(size, size)
    draw = np.random.default_rng(seed)
    theta, _ = draw_grouped_parameters(g.n_edges, 10, rng=draw)
    X = draw.integers(0, 2, size=(1000, g.n_nodes))
    new, ref = BlockGibbsSampler(g, theta), _ReferenceGibbsSampler(g, theta)

    def pair(X_init):
        """(state, rng) of the reference and of the new kernel, from equal seeds."""
        out = []
        for kernel in (ref, new):
            rng = np.random.default_rng(seed + 1)
            out.append((kernel.init_state(n_chains, rng=rng, X=X_init), rng))
        assert np.array_equal(out[0][0], out[1][0])
        return out

    print(
        f"\nkernel: {size}x{size} grid ({g.n_nodes} nodes, {g.n_edges} edges), {n_chains} chains; "
        f"median of {calls} calls each, interleaved"
    )
    _header(clock_name)
    ratios = {}
    for start, X_init in (("uniform start", None), ("started from data", X)):
        (s_ref, r_ref), (s_new, r_new) = pair(X_init)
        label = f"sweep, {start}"
        t_ref, t_new, _ = _interleaved(
            partial(ref.sweep, s_ref, rng=r_ref), partial(new.sweep, s_new, rng=r_new), calls, clock
        )
        assert np.array_equal(s_ref, s_new), "states differ"
        assert _same_rng(r_ref, r_new), "random streams differ"
        ratios[label] = _report(label, t_ref, t_new, 1e3, "ms")
        label = f"agreement_counts, {start}"
        t_ref, t_new, (c_ref, c_new) = _interleaved(
            partial(ref.agreement_counts, s_ref), partial(new.agreement_counts, s_new), calls, clock
        )
        assert np.array_equal(c_ref, c_new), "agreement counts differ"
        ratios[label] = _report(label, t_ref, t_new, 1e3, "ms")
    print("  outputs identical: states, agreement counts, random-generator states")
    return ratios


def bench_pcd(size: int, n: int, n_iter: int, repeats: int, seed: int, clock, clock_name: str):
    g = grid(size, size)
    rng = np.random.default_rng(seed)
    theta, _ = draw_grouped_parameters(g.n_edges, 10, rng=rng)
    X = sample(g, theta, n, rng=rng, n_sweeps=200)

    def fit(kernel_cls):
        est = PersistentContrastiveDivergence(g, n_iter=n_iter)
        est._kernel = kernel_cls(g)  # fit reuses a kernel of the same graph
        return est.fit(X, rng=np.random.default_rng(seed + 1))

    t_ref, t_new, (a, b) = _interleaved(
        lambda: fit(_ReferenceGibbsSampler), lambda: fit(BlockGibbsSampler), repeats, clock
    )
    assert np.array_equal(a.theta_, b.theta_), "PCD estimates differ"
    assert np.array_equal(a.particles_, b.particles_), "PCD particles differ"
    assert np.array_equal(a.gradient_norm_trace_, b.gradient_norm_trace_), "PCD traces differ"
    print(
        f"\npcd: {size}x{size} grid, n = {n}, {n_iter} iterations, 500 particles; "
        f"median of {repeats} fits each, interleaved"
    )
    _header(clock_name)
    ratio = _report("PCD fit", t_ref, t_new, 1.0, "s")
    print("  outputs identical: estimates, particles, gradient traces")
    return ratio


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=30, help="grid side (default 30)")
    ap.add_argument("--n-chains", type=int, default=500)
    ap.add_argument("--calls", type=int, default=200, help="kernel calls of each (default 200)")
    ap.add_argument("--n", type=int, default=1000, help="PCD training samples")
    ap.add_argument("--n-iter", type=int, default=200, help="PCD iterations")
    ap.add_argument("--pcd-repeats", type=int, default=5)
    ap.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="time by process CPU seconds (default; less inflated by a loaded machine) or wall",
    )
    ap.add_argument("--skip-pcd", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; {args.clock} seconds"
    )
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    bench_kernel(args.size, args.n_chains, args.calls, args.seed, clock, args.clock)
    if not args.skip_pcd:
        bench_pcd(args.size, args.n, args.n_iter, args.pcd_repeats, args.seed, clock, args.clock)


if __name__ == "__main__":
    main()
