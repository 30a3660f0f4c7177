"""Benchmark: bnstudy's vectorised forward sampling against pgmpy's ``BayesianModelSampling``.

For each network, 20000 samples (``--n``): ``forward_sample`` (state-index array) and
``forward_sample`` + ``samples_to_frame`` (a DataFrame of state names, what pgmpy returns) are timed
``--repeats`` times, pgmpy's ``forward_sample(size=n, seed=..., show_progress=False)``
``--pgmpy-repeats`` times, in the same process. Loading the network and building the pgmpy model are
not timed. Prints the median seconds and the ratio pgmpy / ours.

Usage::

    .venv/bin/python benchmarks/bench_forward_sampling.py [--networks alarm pigs link]
        [--repeats 5] [--pgmpy-repeats 3] [--n 20000] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

import numpy as np
from timing import median_time

from bnstudy.networks import forward_sample, load_network, samples_to_frame

DEFAULT_DATA = Path(
    os.environ.get(
        "BNSTUDY_DATA_MIRROR", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
)


def bench_network(path: Path, n: int, repeats: int, pgmpy_repeats: int) -> dict[str, float]:
    """Median seconds of our sampler (array, and array + DataFrame) and of pgmpy's on one network."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.sampling import BayesianModelSampling

    bn = load_network(path)
    sampler = BayesianModelSampling(bn.to_pgmpy())
    forward_sample(bn, 100, rng=np.random.default_rng(0))  # warm-up

    def ours(r: int) -> None:
        forward_sample(bn, n, rng=np.random.default_rng(r))

    def ours_frame(r: int) -> None:
        samples_to_frame(bn, forward_sample(bn, n, rng=np.random.default_rng(r)))

    def theirs(r: int) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sampler.forward_sample(size=n, seed=r, show_progress=False)

    return {
        "nodes": len(bn.nodes),
        "ours": median_time(ours, repeats, pass_repeat=True).median,
        "ours_frame": median_time(ours_frame, repeats, pass_repeat=True).median,
        "pgmpy": median_time(theirs, pgmpy_repeats, pass_repeat=True).median,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="+", default=["alarm", "pigs", "link"])
    parser.add_argument("--repeats", type=int, default=5, help="repeats of our sampler")
    parser.add_argument("--pgmpy-repeats", type=int, default=3, help="repeats of pgmpy's sampler")
    parser.add_argument("--n", type=int, default=20000, help="samples per draw")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data mirror (with bif/)")
    args = parser.parse_args(argv)

    print(
        f"forward sampling, n = {args.n}; median seconds (ours x{args.repeats}, "
        f"pgmpy x{args.pgmpy_repeats})"
    )
    print(
        f"{'network':<10} {'nodes':>5} {'ours':>9} {'ours+frame':>11} {'pgmpy':>9} "
        f"{'pgmpy/ours':>11} {'pgmpy/(ours+frame)':>19}"
    )
    for name in args.networks:
        r = bench_network(
            args.data / "bif" / f"{name}.bif.gz", args.n, args.repeats, args.pgmpy_repeats
        )
        print(
            f"{name:<10} {r['nodes']:>5} {r['ours']:>9.4f} {r['ours_frame']:>11.4f} "
            f"{r['pgmpy']:>9.3f} {r['pgmpy'] / r['ours']:>10.1f}x "
            f"{r['pgmpy'] / r['ours_frame']:>18.1f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
