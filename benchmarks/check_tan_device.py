"""Does the TAN study train the same on a GPU as on the CPU? One run of each on real data.

``train_tan`` trains on a GPU when one is present (``paper.yaml``'s usps and mnist runs are
meant for one), and every test of the library runs on the CPU. This script trains the same
specs, with the same seeds, once on the CPU and four times on ``--device`` (twice with torch's
default kernels, twice with its deterministic ones), through
:func:`bnstudy.studies.tan.experiments.run_tan_experiments` (the rule's own path: grouping,
chunking, the fused or per-setting Adam), on one fold of the authors' discretized data, and
compares every result:

- the training loss of every epoch (relative difference);
- the learned structure (share of features with the same parent);
- the test error;
- whether two runs on ``--device`` are equal to the bit, with torch's default kernels (as the
  ``train_tan`` rule uses them) and with its deterministic ones
  (:func:`torch.use_deterministic_algorithms`).

Random draws come from per-setting CPU generators on either device, so the runs differ only by
floating-point summation order. That order decides a learned structure's sampled parents when
two are nearly tied, so its runs may part; a fixed structure's must not. Exit status 1 when a
fixed structure's parents differ or its loss differs by more than ``--rtol``, or when two runs
with the deterministic kernels differ.

Run from the repository root, with the authors' ``usps.npz`` and ``usps_mi.npz`` in ``--data``
(``PYTHONPATH=src`` outside the installed environment)::

    python benchmarks/check_tan_device.py --data ../shared/data/bnc --device cuda
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

from bnstudy.data.prepared import from_bnc
from bnstudy.data.readers import read_bnc, read_bnc_mi
from bnstudy.studies.tan.experiments import run_tan_experiments

HYPER = {"lam": 10.0, "gamma": 1.0, "eta": 10.0}

#: One spec of every trained model of the study (both learning rates for a fixed structure,
#: which train together; four draws of TAN Subset, which form one chunk).
SPECS = [
    {"model": "nb", **HYPER, "lr": 3e-3},
    {"model": "nb", **HYPER, "lr": 3e-2},
    {"model": "tan_random", "ordering": 1, "draw": 3, **HYPER, "lr": 3e-2},
    {"model": "chow_liu", **HYPER, "lr": 3e-2},
    *(
        {"model": "tan_subset", "K": 8, "ordering": 2, "draw": d, **HYPER, "lr": 3e-2}
        for d in range(4)
    ),
    {"model": "tan_heuristic", "K": 2, "ordering": "C", **HYPER, "lr": 3e-2},
    {"model": "pseudo_tan", "K": 8, "draw": 0, **HYPER, "lr": 3e-2},
]


#: Models whose structure is learned (straight-through Gumbel-softmax over candidate parents).
LEARNED = {"tan_subset", "pseudo_tan", "tan_heuristic", "tan_all"}


def _same(a: dict, b: dict) -> bool:
    """Two runs of one spec equal to the bit: every epoch's loss and the parents."""
    return a["history"]["train_loss"] == b["history"]["train_loss"] and a["parents"] == b["parents"]


def train(device: str, fold, n_states, mi, args) -> tuple[list[dict], float]:
    """Every spec of :data:`SPECS` on ``device``; the results and the wall seconds."""
    t0 = time.perf_counter()
    rows = run_tan_experiments(
        SPECS, fold, n_states, len(fold.classes), mi_graph=mi, image_shape=(16, 16),
        seed=list(range(len(SPECS))), device=device, n_epochs=args.epochs,
        batch_size=100, eval_every=args.epochs,
    )  # fmt: skip
    return rows, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="folder of usps.npz, usps_mi.npz")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--rows", type=int, default=None, help="training rows (default: all)")
    parser.add_argument("--rtol", type=float, default=1e-3, help="largest relative loss difference")
    args = parser.parse_args(argv)
    torch.set_num_threads(4)
    usps = from_bnc("bnc_usps", read_bnc(args.data / "usps.npz"))  # as prepare_dataset does
    fold, n_states = usps.folds[0], usps.n_states[0]
    mi = read_bnc_mi(args.data / "usps_mi.npz")[0]
    if args.rows is not None:
        fold = type(fold)(
            fold.x_train[: args.rows], fold.y_train[: args.rows], fold.x_test, fold.y_test,
            fold.classes,
        )  # fmt: skip
    name = torch.cuda.get_device_name() if args.device.startswith("cuda") else args.device
    print(
        f"torch {torch.__version__}, {args.device} ({name}); usps fold 1, "
        f"{len(fold.y_train)} training rows, {args.epochs} epochs"
    )
    cpu, t_cpu = train("cpu", fold, n_states, mi, args)
    dev, t_dev = train(args.device, fold, n_states, mi, args)
    again, _ = train(args.device, fold, n_states, mi, args)
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS's deterministic mode
    torch.use_deterministic_algorithms(True)
    try:
        det = [train(args.device, fold, n_states, mi, args)[0] for _ in range(2)]
    except RuntimeError as exc:  # an operation without a deterministic implementation
        print(f"deterministic kernels on {args.device}: {exc}")
        det = None
    print(f"wall seconds: cpu {t_cpu:.1f}, {args.device} {t_dev:.1f}")
    print(
        "columns: relative loss difference from the cpu at the first epoch and at most; share "
        "of features with the cpu's parent; the device's second run equal to its first (loss "
        "and parents, to the bit); the same with torch's deterministic kernels; test errors"
    )
    print(
        f"{'model':<14} {'loss diff ep 1':>14} {'max':>9} {'parents':>8} {'repeats':>8} "
        f"{'det. repeats':>12} {'cpu error':>10} {'device error':>12}"
    )
    failed = False
    for i, (spec, a, b) in enumerate(zip(SPECS, cpu, dev, strict=True)):
        la, lb = np.array(a["history"]["train_loss"]), np.array(b["history"]["train_loss"])
        rel = np.abs(la - lb) / np.abs(la)
        share = float(np.mean(np.array(a["parents"]) == np.array(b["parents"])))
        repeats = _same(b, again[i])
        det_repeats = det is not None and _same(det[0][i], det[1][i])
        learned = spec["model"] in LEARNED
        failed |= not learned and (share < 1 or rel.max() > args.rtol)
        failed |= not det_repeats
        print(
            f"{spec['model']:<14} {rel[0]:>14.2e} {rel.max():>9.2e} {share:>8.3f} "
            f"{str(repeats):>8} {'n/a' if det is None else str(det_repeats):>12} "
            f"{a['test_error']:>10.4f} "
            f"{b['test_error']:>12.4f}"
        )
    print(
        "FAILED"
        if failed
        else f"fixed structures: same results on cpu and {args.device}; "
        "with the deterministic kernels, runs repeat to the bit"
    )
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
