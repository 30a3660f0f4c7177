"""Shared by the benchmarks that run this checkout's library beside an earlier commit's.

Each copy (``ref``: the ``src`` of a commit exported with ``git archive``; ``new``: this
checkout's ``src``) runs in its own process with ``PYTHONPATH`` pointing at it. The copies
alternate round by round, so both see the same machine load, and the arrays the first round of
each saved are compared bit for bit.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: The data mirror the benchmarks read networks from: $BNSTUDY_DATA_MIRROR, else ../shared/data.
DATA_MIRROR = Path(os.environ.get("BNSTUDY_DATA_MIRROR", ROOT.parent / "shared" / "data"))


def export_src(ref: str, dest: Path) -> Path:
    """The ``src`` folder of commit ``ref``, extracted under ``dest``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref, "src"],
        check=True,
        capture_output=True,
    ).stdout
    tar = dest / "ref.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as f:
        f.extractall(dest, filter="data")
    return dest / "src"


def run_both(
    script: str, argv: Sequence[str], ref: str, repeats: int
) -> tuple[dict[str, list[dict]], list[str], int]:
    """Run ``script argv --child OUT`` on both copies, ``repeats`` rounds, alternating.

    The child writes ``OUT.json`` (its times) and ``OUT.npz`` (its results). Returns the times of
    every round per copy (``"ref"``, ``"new"``), the names of the arrays that differ between the
    copies' first rounds (or exist in one only) and the number of arrays compared.
    """
    times: dict[str, list[dict]] = {"ref": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        srcs = {"ref": export_src(ref, tmp), "new": ROOT / "src"}
        for i in range(repeats):
            for name in ("ref", "new") if i % 2 == 0 else ("new", "ref"):
                out = tmp / f"{name}{i}"
                cmd = [sys.executable, script, *argv, "--child", str(out)]
                subprocess.run(cmd, check=True, env={**os.environ, "PYTHONPATH": str(srcs[name])})
                times[name].append(json.loads(out.with_suffix(".json").read_text()))
        differ, n_arrays = npz_differ(tmp / "ref0.npz", tmp / "new0.npz")
        return times, differ, n_arrays


def npz_differ(a: Path, b: Path, skip: Sequence[str] = ()) -> tuple[list[str], int]:
    """Names of the arrays that differ between two ``.npz`` files (NaN equal to NaN) or are in
    one only, leaving out ``skip``; and how many arrays ``a`` holds."""
    with np.load(a) as za, np.load(b) as zb:
        ka, kb = set(za.files) - set(skip), set(zb.files) - set(skip)
        differ = sorted(ka ^ kb) + [
            k
            for k in sorted(ka & kb)
            if not np.array_equal(za[k], zb[k], equal_nan=za[k].dtype.kind in "fc")
        ]
        return differ, len(za.files)


def report(
    times: dict[str, list[dict]], keys: Sequence[str], ref: str, differ: list[str], n_arrays: int
) -> int:
    """Print the median of each copy and the ratio ref / new per key; 1 if results differ."""
    width = max(len(k) for k in keys) + 2
    print(f"{'':<{width}}{'ref ' + ref:>16}{'this code':>12}{'ratio':>8}")
    for key in keys:
        r = statistics.median(t[key] for t in times["ref"])
        n = statistics.median(t[key] for t in times["new"])
        print(f"{key:<{width}}{r:>16.3f}{n:>12.3f}{r / n:>7.2f}x")
    if differ:
        print(f"results differ: {differ[:10]}")
        return 1
    print(f"results identical: {n_arrays} arrays")
    return 0


def block_arrays(estimator: str, runs: Sequence[tuple[dict, dict]]) -> dict[str, np.ndarray]:
    """The arrays of a block of MRF runs (``run_simulation_block``'s output) to compare, by name.

    Each run's numeric metrics (its times left out) and its arrays, named
    ``estimator/run index/key``.
    """
    arrays = {}
    for i, (row, arr) in enumerate(runs):
        for k, v in row.items():
            if isinstance(v, int | float) and k not in ("seconds", "init_seconds"):
                arrays[f"{estimator}/{i}/{k}"] = np.asarray(v)
        for k, v in arr.items():
            arrays[f"{estimator}/{i}/{k}"] = v
    return arrays


def through_file(replicates: dict) -> dict:
    """MRF replicates written to a block file and read back, as a simulation job and a fit job do.

    Uses the ``save_replicates`` and ``load_replicates`` of the copy of the library that runs.
    """
    from bnstudy.studies.mrf.experiments import load_replicates, save_replicates

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.npz"
        save_replicates(path, replicates, dict.fromkeys(replicates, 0))
        return load_replicates(path)
