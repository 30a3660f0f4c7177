"""The data summary table: what every prepared dataset holds; its raw files must verify."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from bnstudy.data.build import load_senate
from bnstudy.data.integrity import verify_raw_file
from bnstudy.data.prepared import compare_state_counts, load_prepared
from bnstudy.data.registry import dataset as dataset_spec

__all__ = ["raw_files_verified", "summarize_datasets"]

PathLike = str | os.PathLike

# Our MDL discretization of a raw dataset, and the authors' release of the same data.
AUTHORS_RELEASE = {"letter": "bnc_letter", "satimage": "bnc_satimage", "usps": "bnc_usps"}


def raw_files_verified(name: str, raw_root: PathLike) -> bool:
    """Re-verify the payload checksum of every raw file of dataset ``name`` under ``raw_root``.

    Returns
    -------
    bool
        Always True: a file that does not verify is an error, never a value in the table.

    Raises
    ------
    bnstudy.data.integrity.ChecksumError
        If a raw file's payload differs from the registry's sha256 (naming the file, both hashes
        and how to rebuild it).
    FileNotFoundError
        If a raw file is missing.
    """
    for path in dataset_spec(name).files:
        file = Path(raw_root) / path
        if not file.is_file():
            raise FileNotFoundError(f"raw file {path!r} of dataset {name!r} is missing: {file}")
        verify_raw_file(file)  # raw_root/path always ends with the registry path
    return True


def _classification_row(name: str, path: PathLike) -> dict[str, object]:
    ds = load_prepared(path)
    first = ds.folds[0]
    states = np.concatenate(ds.n_states)
    return {
        "dataset": name,
        "source": ds.source,
        "folds": ds.n_folds,
        "train": int(np.mean([len(f.y_train) for f in ds.folds]).round()),
        "test": int(np.mean([len(f.y_test) for f in ds.folds]).round()),
        "features": ds.n_features,
        "classes": ds.n_classes,
        "states_min": int(states.min()),
        "states_median": float(np.median(states)),
        "states_max": int(states.max()),
        "states_total": int(ds.n_states[0].sum()),
        "_n_states": ds.n_states[0],
        "_first_train": len(first.y_train),
    }


def _senate_row(name: str, path: PathLike) -> dict[str, object]:
    data = load_senate(path)
    sessions = sorted(data.votes)
    return {
        "dataset": name,
        "source": (
            f"s109.rda (pscl): contested roll calls ({data.min_yeas} to {data.max_yeas} yeas) "
            f"of {'/'.join(str(data.n_rollcalls[s]) for s in sessions)} per session"
        ),
        "folds": 1,
        "train": int(data.votes[sessions[0]].shape[0]),
        "test": int(data.votes[sessions[-1]].shape[0]),
        "features": len(data.senators),
        "classes": np.nan,
        "states_min": 2,
        "states_median": 2.0,
        "states_max": 2,
        "states_total": 2 * len(data.senators),
    }


def summarize_datasets(prepared: Mapping[str, PathLike], raw_root: PathLike) -> pd.DataFrame:
    """One row per prepared dataset.

    Columns: dataset, source, folds, train and test sizes (mean over folds), features, classes,
    states per feature (min/median/max over features and folds; total of the first fold),
    ``checksums_verified`` (every raw file re-verified now; always True, since a file that does not
    verify raises :class:`~bnstudy.data.integrity.ChecksumError` instead) and, for a raw dataset we discretized
    whose authors' release is also prepared, ``authors_states_agree``: the share of features whose
    number of states equals the authors' (first fold), with ``authors_states_total``.
    """
    rows = []
    for name, path in prepared.items():
        kind = dataset_spec(name).kind
        row = _senate_row(name, path) if kind == "votes" else _classification_row(name, path)
        row["checksums_verified"] = raw_files_verified(name, raw_root)
        rows.append(row)
    by_name = {row["dataset"]: row for row in rows}
    for row in rows:
        theirs = by_name.get(AUTHORS_RELEASE.get(row["dataset"], ""))
        if theirs is None or "_n_states" not in row:
            continue
        cmp = compare_state_counts(row["_n_states"], theirs["_n_states"])
        row["authors_states_agree"] = cmp["agreement"]
        row["authors_states_total"] = theirs["states_total"]
    frame = pd.DataFrame(rows).drop(columns=["_n_states", "_first_train"], errors="ignore")
    for column in ("authors_states_agree", "authors_states_total"):
        if column not in frame:
            frame[column] = np.nan
    return frame
