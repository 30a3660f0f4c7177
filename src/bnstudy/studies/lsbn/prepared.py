"""The learner-independent phases of LSBN, stored once per dataset for its five LSBN runs.

ROPART (Algorithm 1) and the Markov blankets (Algorithm 2, step 1) depend on the data and the
ROPART and IAMB settings only (:func:`bnstudy.structure.lsbn.prepare`), so the ``prepare_lsbn``
job computes them once and every ``run_lsbn`` job of that dataset reads them. A run given the
stored phases learns the same structure as one that computes them itself, and reports their
times as if it had (``timings``).

The file is a verified ``.npz`` (:func:`bnstudy.data.integrity.save_verified_npz`): plain
arrays, no pickles. Communities are stored as their nodes concatenated with their sizes. The raw
LinkComm results (``RopartResult.link_communities``) are not stored: nothing after ROPART reads
them.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike

import numpy as np

from bnstudy.data.integrity import load_verified_npz, save_verified_npz
from bnstudy.structure.lsbn import LSBNPrepared
from bnstudy.structure.ropart import RopartResult

__all__ = ["PREPARE_SETTINGS", "load_prepared", "save_prepared"]

#: The LSBN settings that :func:`bnstudy.structure.lsbn.prepare` reads (ROPART, then IAMB).
PREPARE_SETTINGS = ("weight_functions", "bins", "second_order_threshold", "mb_weight", "mb_alpha")


def _communities_arrays(prefix: str, communities: Sequence[Sequence[int]]) -> dict:
    sizes = np.array([len(c) for c in communities], dtype=np.int64)
    nodes = np.concatenate([np.asarray(c, dtype=np.int64) for c in communities] or [[]])
    return {f"{prefix}/nodes": nodes.astype(np.int64), f"{prefix}/sizes": sizes}


def _communities(arrays: dict, prefix: str) -> list[list[int]]:
    bounds = np.cumsum(np.r_[0, arrays[f"{prefix}/sizes"]])
    nodes = arrays[f"{prefix}/nodes"].tolist()
    return [nodes[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def save_prepared(dest: str | PathLike, prepared: LSBNPrepared) -> None:
    """Write ``prepared`` to ``dest`` (a verified ``.npz``, atomically)."""
    part = prepared.ropart
    names = list(part.partitions)
    arrays = {
        "columns": np.asarray(prepared.columns, dtype=np.int64),
        "blankets": np.asarray(prepared.blankets, dtype=bool),
        "timing_names": np.array(list(prepared.timings), dtype=str),
        "timing_seconds": np.array(list(prepared.timings.values()), dtype=np.float64),
        "weight_functions": np.array(names, dtype=str),
        "thresholds": np.array([part.thresholds[k] for k in names], dtype=np.float64),
        "remaining_edges_pct": np.array(
            [part.remaining_edges_pct[k] for k in names], dtype=np.float64
        ),
        "weight_names": np.array(list(part.weights), dtype=str),
        "second_order_weights": np.asarray(part.second_order_weights, dtype=np.float64),
        "second_order_threshold": np.float64(part.second_order_threshold),
        "second_order_remaining_edges_pct": np.float64(part.second_order_remaining_edges_pct),
        **_communities_arrays("second_order", part.second_order),
    }
    for i, name in enumerate(names):
        arrays |= _communities_arrays(f"partition{i}", part.partitions[name])
    for i, w in enumerate(part.weights.values()):
        arrays[f"weights{i}"] = np.asarray(w)
    save_verified_npz(dest, **arrays)


def load_prepared(path: str | PathLike) -> LSBNPrepared:
    """Read what :func:`save_prepared` wrote (its content hash checked first).

    Raises
    ------
    bnstudy.data.integrity.ChecksumError
        If the file is damaged or was not written by :func:`save_prepared`'s writer.
    ValueError
        If an array it needs is missing (the message names the file and the array).
    """
    arrays = load_verified_npz(path)
    try:
        names = arrays["weight_functions"].tolist()
        ropart = RopartResult(
            partitions={k: _communities(arrays, f"partition{i}") for i, k in enumerate(names)},
            thresholds=dict(zip(names, arrays["thresholds"].tolist(), strict=True)),
            remaining_edges_pct=dict(
                zip(names, arrays["remaining_edges_pct"].tolist(), strict=True)
            ),
            second_order=_communities(arrays, "second_order"),
            second_order_weights=arrays["second_order_weights"],
            second_order_threshold=float(arrays["second_order_threshold"]),
            second_order_remaining_edges_pct=float(arrays["second_order_remaining_edges_pct"]),
            weights={
                k: arrays[f"weights{i}"] for i, k in enumerate(arrays["weight_names"].tolist())
            },
        )
        timings = dict(
            zip(arrays["timing_names"].tolist(), arrays["timing_seconds"].tolist(), strict=True)
        )
        return LSBNPrepared(
            columns=arrays["columns"],
            ropart=ropart,
            blankets=arrays["blankets"],
            timings=timings,
        )
    except KeyError as exc:
        raise ValueError(f"{path}: no array {exc.args[0]!r}; is it a prepare_lsbn output?") from exc
