"""Benchmark: ROPART's weight functions and LinkComm on alarm and link.

For each network, ``--n`` forward samples (default 20000, as in the LSBN paper) are drawn once
(not timed). Then, ``--repeats`` times each:

* ``weights``: all seven weight matrices from one pass of pairwise counts
  (:func:`bnstudy.structure.weights.weight_matrices`), which includes the counting;
* ``linkcomm``: LinkComm on every weight function's pruned graph (elbow threshold), one timing
  per function, and their sum;
* ``ropart``: the whole of Algorithm 1 (weights, pruning, seven LinkComm runs, second-order
  network and its LinkComm).

Prints the median seconds, the pruned graph sizes and the number of adjacent edge pairs.

Usage::

    .venv/bin/python benchmarks/bench_linkcomm.py [--networks alarm link] [--repeats 5]
        [--n 20000] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
from timing import median_time

from bnstudy.networks import forward_sample, load_network
from bnstudy.structure.linkcomm import link_communities
from bnstudy.structure.ropart import ropart
from bnstudy.structure.weights import WEIGHT_FUNCTIONS, elbow_threshold, prune, weight_matrices

DEFAULT_DATA = Path(
    os.environ.get(
        "BNSTUDY_DATA_MIRROR", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
)


def bench_network(path: Path, n: int, repeats: int) -> None:
    """Print median seconds of the weights, LinkComm per weight function, and ROPART."""
    bn = load_network(path)
    x = forward_sample(bn, n, rng=np.random.default_rng(0))
    p = x.shape[1]
    t_weights = median_time(lambda: weight_matrices(x), repeats).median
    weights = weight_matrices(x)
    print(f"{bn.name}: {p} variables, {n} samples")
    print(f"  weights (all 7, one pass of counts): {t_weights:8.3f} s")
    total = 0.0
    for m in WEIGHT_FUNCTIONS:
        w = weights[m]
        edges = prune(w, elbow_threshold(w))
        ew = w[edges[:, 0], edges[:, 1]]
        t = median_time(lambda e=edges, v=ew: link_communities(p, e, v), repeats).median
        deg = np.bincount(edges.ravel(), minlength=p)
        pairs = int((deg * (deg - 1) // 2).sum())
        total += t
        print(
            f"  linkcomm {m:<11} {len(edges):6d} edges {pairs:9d} edge pairs: {t:8.3f} s",
            flush=True,
        )
    print(f"  linkcomm, sum over the 7 pruned graphs:  {total:8.3f} s")
    t_ropart = median_time(lambda: ropart(x), repeats).median
    print(f"  ropart (Algorithm 1, end to end):        {t_ropart:8.3f} s", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="+", default=["alarm", "link"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n", type=int, default=20000, help="forward samples per network")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data mirror (with bif/)")
    args = parser.parse_args(argv)
    print(f"median seconds over {args.repeats} repeats")
    for name in args.networks:
        bench_network(args.data / "bif" / f"{name}.bif.gz", args.n, args.repeats)


if __name__ == "__main__":
    main()
