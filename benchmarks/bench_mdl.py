"""Benchmark: our MDL discretization (Fayyad & Irani 1993) on MNIST 14x14 and UCI letter.

MNIST: the 60000 training images are shrunk to 14x14 (2x2 mean pooling, and MATLAB-style
antialiased bicubic as in the authors' data), flattened to 196 features, and
``MDLDiscretizer.fit`` (both cut selections) is timed ``--repeats`` times; letter: the standard 16000
training rows. Reading and shrinking are timed once, outside. Prints the median seconds and the
total number of states.

Usage::

    .venv/bin/python benchmarks/bench_mdl.py [--repeats 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from timing import median_time

from bnstudy.data.discretize import MDLDiscretizer, imresize_bicubic, pool_images
from bnstudy.data.readers import read_letter, read_mnist

DEFAULT_DATA = Path(
    os.environ.get(
        "BNSTUDY_DATA_MIRROR", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data mirror")
    args = parser.parse_args(argv)

    m = args.data / "mnist"
    mnist = read_mnist(
        m / "train-images-idx3-ubyte.gz",
        m / "train-labels-idx1-ubyte.gz",
        m / "t10k-images-idx3-ubyte.gz",
        m / "t10k-labels-idx1-ubyte.gz",
    )
    letter = read_letter(args.data / "uci" / "letter" / "letter-recognition.data")
    n = len(mnist.y_train)
    inputs = {}
    for name, shrink in (("mnist14 mean", pool_images), ("mnist14 bicubic", imresize_bicubic)):
        t0 = time.perf_counter()
        x = shrink(mnist.x_train, 2).reshape(n, -1)
        print(f"{name}: shrinking {n} images took {time.perf_counter() - t0:.2f} s")
        inputs[name] = (x, mnist.y_train)
    inputs["letter 16000"] = (letter.x_train, letter.y_train)

    print(f"MDLDiscretizer.fit, median of {args.repeats} (seconds)")
    print(f"{'data':<16} {'shape':>12} {'selection':>14} {'fit s':>8} {'states':>7} {'max':>4}")
    for name, (x, y) in inputs.items():
        for selection in ("best", "best_accepted"):
            seconds, _, mdl = median_time(
                lambda x=x, y=y, s=selection: MDLDiscretizer(cut_selection=s).fit(x, y),
                args.repeats,
            )
            states = np.asarray(mdl.n_states_)
            shape = f"{x.shape[0]}x{x.shape[1]}"
            print(
                f"{name:<16} {shape:>12} {selection:>14} {seconds:>8.3f} {states.sum():>7d} "
                f"{states.max():>4d}",
                flush=True,
            )


if __name__ == "__main__":
    main()
