"""How our MDL discretization compares with the TAN authors' released discretized datasets.

The authors' ``bnc/*.npz`` hold, per fold, every raw row once (train + test), each feature mapped by
a monotone step function to states. Sorting a raw column and the matching column of their states
therefore aligns the two and gives their state of every raw value; matching rows on (class, states)
then tells which raw rows were their training rows. Fitting our MDL on exactly those rows is the
fair comparison of the two discretizers.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from bnstudy.data.discretize import MDLDiscretizer
from bnstudy.data.readers import ClassificationSplit

__all__ = ["authors_codes", "authors_training_rows", "compare_with_authors"]

logger = logging.getLogger(__name__)


def _stack(split: ClassificationSplit) -> tuple[np.ndarray, np.ndarray]:
    return np.vstack([split.x_train, split.x_test]), np.concatenate([split.y_train, split.y_test])


def authors_codes(x_raw: np.ndarray, fold: ClassificationSplit) -> np.ndarray:
    """The authors' state of every raw value, shape of ``x_raw``.

    Raises
    ------
    ValueError
        If the fold does not hold the same rows, or its states are not a function of the raw
        values (then it was not discretized from this raw data).
    """
    x_auth, _ = _stack(fold)
    if x_auth.shape != x_raw.shape:
        raise ValueError(
            f"the authors' fold has {x_auth.shape} values, the raw data {x_raw.shape}: not the same rows"
        )
    order = np.argsort(x_raw, axis=0, kind="stable")
    codes = np.empty_like(x_auth)
    np.put_along_axis(codes, order, np.sort(x_auth, axis=0), axis=0)
    # equal raw values must have equal states (the map is a step function)
    sorted_raw = np.take_along_axis(x_raw, order, axis=0)
    sorted_codes = np.take_along_axis(codes, order, axis=0)
    same_value = sorted_raw[1:] == sorted_raw[:-1]
    if np.any(same_value & (sorted_codes[1:] != sorted_codes[:-1])):
        raise ValueError("the authors' states are not a function of the raw values")
    return codes


def authors_training_rows(
    x_raw: np.ndarray, y_raw: np.ndarray, fold: ClassificationSplit, codes: np.ndarray
) -> np.ndarray:
    """Boolean mask of the raw rows that were the authors' training rows.

    Rows are matched on (class, states). A key that occurs in both their train and test cannot be
    told apart; its first occurrences (in raw order) are taken as training rows.
    """
    keys = np.column_stack([y_raw, codes])
    train_keys = np.column_stack([fold.y_train, fold.x_train])
    uniq, inverse = np.unique(np.vstack([keys, train_keys]), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    raw_ids, train_ids = inverse[: len(keys)], inverse[len(keys) :]
    need = np.bincount(train_ids, minlength=len(uniq))
    # rank of each raw row among the raw rows with the same key, in raw order
    order = np.argsort(raw_ids, kind="stable")
    first = np.searchsorted(raw_ids[order], raw_ids[order])
    rank = np.empty(len(keys), dtype=np.int64)
    rank[order] = np.arange(len(keys)) - first
    is_train = rank < need[raw_ids]
    if is_train.sum() != len(fold.y_train):
        raise ValueError("the authors' training rows do not all occur in the raw data")
    return is_train


def compare_with_authors(
    name: str, raw: ClassificationSplit, folds: list[ClassificationSplit]
) -> pd.DataFrame:
    """Our MDL against the authors' discretization, per fold and cut selection.

    For each fold, MDL is fit (a) on the standard split of ``raw`` and (b) on the authors' own
    training rows, with both cut selections. Columns: ``dataset``, ``fold``, ``fit_on``,
    ``cut_selection``, ``features``, ``equal_state_counts`` (features with the authors' number of
    states), ``identical_cuts`` (features mapping every raw value to the authors' state; only for
    fits on their rows, where the same rows are compared), ``states_ours``, ``states_authors``.
    """
    x_raw, y_raw = _stack(raw)
    rows = []
    for k, fold in enumerate(folds, start=1):
        codes = authors_codes(x_raw, fold)
        is_train = authors_training_rows(x_raw, y_raw, fold, codes)
        theirs = np.concatenate([fold.x_train, fold.x_test]).max(axis=0) + 1
        fits = {
            "standard split": (raw.x_train, raw.y_train),
            "the authors' training rows": (x_raw[is_train], y_raw[is_train]),
        }
        for fit_on, (x_fit, y_fit) in fits.items():
            for selection in ("best", "best_accepted"):
                mdl = MDLDiscretizer(cut_selection=selection).fit(x_fit, y_fit)
                identical = np.nan
                if fit_on != "standard split":
                    identical = int((mdl.transform(x_raw) == codes).all(axis=0).sum())
                rows.append(
                    {
                        "dataset": name,
                        "fold": k,
                        "fit_on": fit_on,
                        "training_rows": len(y_fit),
                        "cut_selection": selection,
                        "features": x_raw.shape[1],
                        "equal_state_counts": int((mdl.n_states_ == theirs).sum()),
                        "identical_cuts": identical,
                        "states_ours": int(mdl.n_states_.sum()),
                        "states_authors": int(theirs.sum()),
                    }
                )
    logger.info("%s: compared MDL with the authors' %d fold(s)", name, len(folds))
    return pd.DataFrame(rows)
