"""The TAN study's protocol: hyperparameter grids, validation splits, and Table 1.

Roth & Pernkopf (2020) report, per model and dataset, the best test error over all their
hyperparameter settings (Table 1; there is no validation split, targets.md A.2). The study
reports that column and an honest one: the setting is chosen by its error on a validation split
carved from the training data, and the test error of that setting (trained on the full training
set) is reported.

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020, Sec. 4, Table 1, Figures 2-3; the run scripts of
   https://github.com/wroth8/bnc (``pgm-2020/``) for the grids.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from bnstudy.data.readers import ClassificationSplit

__all__ = [
    "GRID_KEYS",
    "HPARAM_COLUMNS",
    "PROTOCOLS",
    "SET_B_ETA",
    "TABLE1_MODELS",
    "compare_mi_graphs",
    "expand_grid",
    "load_mi_graphs",
    "read_hparams",
    "save_mi_graphs",
    "select_settings",
    "spec_id",
    "subsample_training",
    "table1",
    "training_split",
    "validation_split",
]

logger = logging.getLogger(__name__)

#: Rows of Table 1, in the paper's order, with the labels the table uses.
TABLE1_MODELS = {
    "nb_ml": "ML NB",
    "chow_liu_ml": "ML Chow-Liu",
    "nb": "hybrid NB",
    "tan_random": "hybrid TAN Random",
    "chow_liu": "hybrid Chow-Liu",
    "tan_subset": "TAN Subset",
    "tan_all": "TAN All",
    "tan_heuristic": "TAN Heuristic",
    "pseudo_tan": "pseudo-TAN",
}

#: Grid keys of a model block in the config, and the spec key each becomes.
GRID_KEYS = {"K": "K", "orderings": "ordering", "draws": "draw", "roots": "root"}

#: Selection protocols of a ``train_tan`` job (see :func:`training_split`).
PROTOCOLS = ("test", "validation")

#: Columns of a hyperparameter table (the authors' random draws, targets.md A.3).
HPARAM_COLUMNS = ("random_param_idx", "lambda_tradeoff", "gamma_margin", "eta")

#: The fixed soft-max sharpness of the authors' set B (targets.md A.3: eta = 10).
SET_B_ETA = 10.0


def spec_id(spec: Mapping) -> str:
    """A stable text id of a spec (its keys sorted), used to match runs across folds/protocols."""
    return json.dumps({k: spec[k] for k in sorted(spec)}, sort_keys=True)


def expand_grid(
    model: str,
    grid: Mapping[str, object],
    hparams: pd.DataFrame | None,
    learning_rates: Sequence[float],
) -> list[dict]:
    """All specs of one model: hyperparameter settings x learning rates x the model's grid.

    Parameters
    ----------
    model : str
        A model of :data:`bnstudy.studies.tan.experiments.MODELS`.
    grid : mapping
        The model's config block: ``settings`` (how many rows of ``hparams`` to use, in order),
        and optional lists ``K``, ``orderings``, ``draws``, ``roots``; ``lam`` overrides the
        trade-off (``0`` = generative loss, as the Chow-Liu recovery experiment).
    hparams : DataFrame or None
        The authors' random draws (``lambda_tradeoff``, ``gamma_margin``, ``eta``); None for the
        closed-form ML models.
    learning_rates : sequence of float
        The CPT learning rates (the paper runs both 3e-3 and 3e-2 and reports the better).

    Returns
    -------
    list of dict
        Specs for :func:`bnstudy.studies.tan.experiments.run_tan_experiments`.
    """
    if model in ("nb_ml", "chow_liu_ml"):
        return [{"model": model, **({"root": 0} if model == "chow_liu_ml" else {})}]
    # in GRID_KEYS's order, not the grid's: the specs' order does not follow the config's keys
    axes = {spec_key: list(grid[key]) for key, spec_key in GRID_KEYS.items() if key in grid}
    if "lam" in grid:
        settings = [{"lam": float(grid["lam"])}]
    else:
        if hparams is None:
            raise ValueError(f"model {model!r} needs a table of hyperparameter settings")
        n = int(grid["settings"])
        if not 1 <= n <= len(hparams):
            raise ValueError(f"settings = {n} for {model!r}: the table has {len(hparams)} rows")
        rows = hparams.iloc[:n]
        settings = [
            {"lam": float(r.lambda_tradeoff), "gamma": float(r.gamma_margin), "eta": float(r.eta)}
            for r in rows.itertuples()
        ]
    specs = []
    names = list(axes)
    for setting, lr, values in itertools.product(
        settings, learning_rates, itertools.product(*axes.values())
    ):
        specs.append(
            {"model": model, **setting, "lr": float(lr), **dict(zip(names, values, strict=True))}
        )
    return specs


def read_hparams(
    paths: str | os.PathLike | Sequence[str | os.PathLike] | None,
) -> pd.DataFrame | None:
    """The authors' hyperparameter draws: one CSV, or several concatenated in the given order.

    Several paths make a union grid, such as ``AB`` (set A's 500 rows, then set B's 100: the
    paper's hybrid Chow-Liu grid, whose setting index 0-499 is set A and 500-599 set B). A table
    without an ``eta`` column gets :data:`SET_B_ETA` (set B fixes eta = 10), so every part has the
    columns :data:`HPARAM_COLUMNS`; ``random_param_idx`` stays each part's own index, the rows of
    the result are numbered from 0. None (the closed-form ML models) gives None.

    Raises
    ------
    ValueError
        No path, or a table that lacks a column other than ``eta``.
    """
    if paths is None:
        return None
    paths = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    if not paths:
        raise ValueError("no hyperparameter table given")
    parts = []
    for path in paths:
        part = pd.read_csv(path)
        if "eta" not in part.columns:
            part = part.assign(eta=SET_B_ETA)
        missing = [c for c in HPARAM_COLUMNS if c not in part.columns]
        if missing:
            raise ValueError(f"hyperparameter table {os.fspath(path)!r} lacks column(s) {missing}")
        parts.append(part[list(HPARAM_COLUMNS)])
    return pd.concat(parts, ignore_index=True)


def training_split(
    split: ClassificationSplit,
    *,
    protocol: str,
    max_train_samples: int | None,
    validation_fraction: float | None = None,
    seed: int,
) -> ClassificationSplit:
    """The split one ``train_tan`` job trains and evaluates on.

    Protocol ``test`` trains on the training rows (a stratified subsample of ``max_train_samples``
    of them when set) and evaluates on the test rows; ``validation`` holds a stratified
    ``validation_fraction`` of those training rows out and evaluates on it (the fraction is
    needed by that protocol only).

    ``seed`` is the split seed of the dataset and fold: the subsample draws from
    ``default_rng([seed, 0])`` and the validation rows from ``default_rng([seed, 1])``, so every
    model and both protocols of a fold see the same rows (the validation protocol's training and
    validation rows together are the test protocol's training rows). The models' own training
    seeds are separate.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}")
    if max_train_samples:
        split = subsample_training(split, max_train_samples, np.random.default_rng([seed, 0]))
    if protocol == "validation":
        split = validation_split(split, validation_fraction, np.random.default_rng([seed, 1]))
    return split


def validation_split(
    fold: ClassificationSplit, fraction: float, rng: np.random.Generator
) -> ClassificationSplit:
    """Hold out a stratified ``fraction`` of the training data as the "test" part.

    The returned split trains on the rest; its ``x_test``/``y_test`` are the validation rows.
    """
    if not 0 < fraction < 1:
        raise ValueError(f"validation fraction must be in (0, 1), got {fraction}")
    y = fold.y_train
    held = np.zeros(len(y), dtype=bool)
    for c in np.unique(y):  # loop over classes, not samples
        members = np.flatnonzero(y == c)
        k = int(round(fraction * len(members)))
        held[rng.choice(members, size=k, replace=False)] = True
    return ClassificationSplit(
        fold.x_train[~held], y[~held], fold.x_train[held], y[held], classes=fold.classes
    )


def subsample_training(
    fold: ClassificationSplit, n: int, rng: np.random.Generator
) -> ClassificationSplit:
    """Keep a stratified subsample of ``n`` training rows (for laptop-scale runs); test unchanged."""
    if n >= len(fold.y_train):
        return fold
    kept = validation_split(fold, 1 - n / len(fold.y_train), rng)
    return ClassificationSplit(kept.x_train, kept.y_train, fold.x_test, fold.y_test, fold.classes)


def select_settings(runs: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and model: the paper's selection and the honest one.

    ``runs`` has one row per (dataset, model, spec, fold, protocol) with ``error``: the test error
    for protocol ``test`` (trained on the full training set), the validation error for protocol
    ``validation``. Errors are first averaged over folds (satimage's 5). Returns one row per
    dataset and model: ``runs`` (number of settings), ``error_best_test`` (the paper's: lowest
    test error over settings), ``error_validation_selected`` (test error of the setting with the
    lowest validation error), ``spec_best_test`` and ``spec_validation_selected``.
    """
    mean = runs.groupby(["dataset", "model", "spec", "protocol"], as_index=False)["error"].mean()
    wide = mean.pivot_table(
        index=["dataset", "model", "spec"], columns="protocol", values="error"
    ).reset_index()
    rows = []
    for (dataset, model), group in wide.groupby(["dataset", "model"], sort=False):
        best = group.loc[group["test"].idxmin()]
        row = {
            "dataset": dataset,
            "model": model,
            "runs": len(group),
            "error_best_test": best["test"],
            "spec_best_test": best["spec"],
            "error_validation_selected": np.nan,
            "spec_validation_selected": "",
        }
        if "validation" in group and group["validation"].notna().any():
            chosen = group.loc[group["validation"].idxmin()]
            row["error_validation_selected"] = chosen["test"]
            row["spec_validation_selected"] = chosen["spec"]
        rows.append(row)
    return pd.DataFrame(rows)


def table1(
    selected: pd.DataFrame,
    datasets: Sequence[str],
    published: pd.DataFrame,
    *,
    validation: bool = True,
) -> pd.DataFrame:
    """Table 1: test error [%] per model (rows) and dataset (columns), best-by-test and by validation.

    ``published`` holds the paper's numbers where known (``model``, ``dataset``, ``error``); the
    paper's Table 1 itself is not available, so most cells have no published value. With
    ``validation=False`` (a config that runs the test protocol only) the validation columns are
    left out rather than shown empty.
    """
    rows = []
    for model, label in TABLE1_MODELS.items():
        sub = selected[selected["model"] == model]
        if sub.empty:
            continue
        row: dict[str, object] = {"model": label}
        for dataset in datasets:
            hit = sub[sub["dataset"] == dataset]
            row[f"{dataset} (best test)"] = (
                100 * hit["error_best_test"].item() if len(hit) else np.nan
            )
            if validation:
                row[f"{dataset} (validation)"] = (
                    100 * hit["error_validation_selected"].item() if len(hit) else np.nan
                )
            pub = published[(published["model"] == model) & (published["dataset"] == dataset)]
            row[f"{dataset} (paper)"] = pub["error"].item() if len(pub) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def save_mi_graphs(dest, graphs: Sequence[np.ndarray]) -> None:
    """Write conditional-MI graphs (one symmetric (D, D) array per fold) atomically."""
    from bnstudy.utils import save_npz

    save_npz(dest, **{f"mi_fold{k}": g for k, g in enumerate(graphs)})


def load_mi_graphs(path) -> list[np.ndarray]:
    """MI graphs per fold from ours (:func:`save_mi_graphs`) or the authors' ``*_mi.npz``."""
    from bnstudy.data.readers import read_bnc_mi

    with np.load(path, allow_pickle=False) as npz:
        ours = sorted((k for k in npz.files if k.startswith("mi_fold")), key=lambda k: int(k[7:]))
        if ours:
            return [npz[k] for k in ours]
    return read_bnc_mi(path)


def compare_mi_graphs(ours: np.ndarray, authors_stored: np.ndarray) -> dict[str, float]:
    """Agreement of our conditional-MI graph with the authors' (stored lower-triangular).

    Returns the Pearson correlation of the off-diagonal I(Xi;Xj|C), the largest absolute
    difference, and the share of Chow-Liu tree edges the two graphs have in common.
    """
    from bnstudy.classifiers.structures import chow_liu_parents

    theirs = np.tril(authors_stored, -1)
    theirs = theirs + theirs.T
    if theirs.shape != ours.shape:
        raise ValueError(f"MI graphs differ in shape: ours {ours.shape}, authors' {theirs.shape}")
    lower = np.tril_indices(ours.shape[0], -1)

    def tree_edges(mi: np.ndarray) -> set[tuple[int, int]]:
        parents = chow_liu_parents(mi, 0)
        return {tuple(sorted((i, int(p)))) for i, p in enumerate(parents) if p >= 0}

    ours_edges, their_edges = tree_edges(ours), tree_edges(theirs)
    return {
        "features": int(ours.shape[0]),
        "pairs": int(len(lower[0])),
        "pearson_r": float(np.corrcoef(ours[lower], theirs[lower])[0, 1]),
        "max_abs_diff": float(np.abs(ours[lower] - theirs[lower]).max()),
        "mean_ours": float(ours[lower].mean()),
        "mean_authors": float(theirs[lower].mean()),
        "chow_liu_edges_shared": len(ours_edges & their_edges) / max(len(their_edges), 1),
    }
