"""Chow-Liu recovery: differentiable TAN with the generative loss (lambda = 0) and the Chow-Liu
ordering from each root, so that the Chow-Liu tree lies in the search space (Roth & Pernkopf,
Sec. 5, "Our method was able to recover the Chow-Liu structure consistently").

The target is the maximum-likelihood TAN of the rows the method actually trains on: the Chow-Liu
tree of the conditional MI I(Xi; Xj | C) computed on those rows (after dropping constant features
and subsampling), directed away from the root. Its agreement with the tree of the authors' MI
graph is recorded too. Every run reports the parents that differ from the target, whether the
target was recovered exactly, the total CMI of the learned structure as a fraction of the Chow-Liu
tree's (1 when recovered; close to 1 when a near-tie flipped an edge) and the smallest margin of
the structure logits Phi between each feature's target parent and its best rival (> 0 for every
feature when recovered). Parent vectors index the kept (non-constant) features.

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020, Sec. 5; code https://github.com/wroth8/bnc
   (``pgm-2020/run_experiment_recover_chow_liu.sh``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

import numpy as np

from bnstudy.classifiers.structures import (
    chow_liu_parents,
    conditional_mutual_information,
    structure_margin,
    tan_weight,
)
from bnstudy.data.prepared import PreparedDataset
from bnstudy.data.readers import ClassificationSplit
from bnstudy.studies.tan.experiments import run_tan_experiments
from bnstudy.studies.tan.protocol import spec_id, training_split
from bnstudy.utils import derive_seed

__all__ = [
    "drop_constant_features",
    "recover_chow_liu",
    "recovery_row",
    "recovery_specs",
]

logger = logging.getLogger(__name__)


def drop_constant_features(
    fold: ClassificationSplit, n_states: np.ndarray
) -> tuple[ClassificationSplit, np.ndarray, np.ndarray]:
    """The fold without its one-state features (the authors used 15 of letter's 16 features).

    Constant features carry no information and tie with everything in the Chow-Liu tree.

    Returns
    -------
    fold : ClassificationSplit
    n_states : numpy.ndarray
        States of the kept features.
    keep : numpy.ndarray of int
        Indices of the kept features.
    """
    n_states = np.asarray(n_states)
    keep = np.flatnonzero(n_states > 1)
    kept = type(fold)(
        fold.x_train[:, keep], fold.y_train, fold.x_test[:, keep], fold.y_test, fold.classes
    )
    return kept, n_states[keep], keep


def recovery_specs(
    n_features: int,
    roots: str | Sequence[int],
    learning_rates: Sequence[float],
    where: str = "recovery",
) -> list[dict]:
    """The generative ``tan_all`` specs in the Chow-Liu ordering, per root and learning rate.

    Parameters
    ----------
    n_features : int
        Features kept (roots index them).
    roots : "all" or sequence of int
    learning_rates : sequence of float
    where : str
        Names the dataset and fold in errors.

    Raises
    ------
    ValueError
        A root outside ``0..n_features-1``.
    """
    fold_roots = range(n_features) if roots == "all" else [int(r) for r in roots]
    specs = []
    for r in fold_roots:
        if not 0 <= r < n_features:
            raise ValueError(f"{where}: root {r} out of range (0..{n_features - 1} kept)")
        for lr in learning_rates:
            specs.append(
                {"model": "tan_all", "lam": 0.0, "lr": float(lr), "ordering": "chow_liu", "root": r}
            )
    return specs


def recovery_row(result: dict, root: int, mi: np.ndarray, authors_mi: np.ndarray) -> dict:
    """How far one run's learned structure is from the Chow-Liu tree of ``mi`` from ``root``.

    Parameters
    ----------
    result : dict
        A row of :func:`~bnstudy.studies.tan.experiments.run_tan_experiments` (``parents``,
        ``structure_logits``, ``candidates``).
    root : int
    mi : numpy.ndarray, shape (D, D)
        Conditional MI of the training rows (the target's graph).
    authors_mi : numpy.ndarray, shape (D, D)
        The authors' MI graph restricted to the kept features.

    Returns
    -------
    dict
        ``parents_differing``, ``recovered``, ``cmi_fraction``, ``structure_margin``,
        ``target_is_authors_tree``, ``target_parents`` and ``learned_parents`` (JSON lists).
    """
    target = chow_liu_parents(mi, root)
    learned = np.asarray(result["parents"])
    return {
        "parents_differing": int((learned != target).sum()),
        "recovered": bool(np.array_equal(learned, target)),
        "cmi_fraction": tan_weight(mi, learned) / tan_weight(mi, target),
        "structure_margin": structure_margin(
            result["structure_logits"], result["candidates"], target
        ),
        "target_is_authors_tree": bool(np.array_equal(target, chow_liu_parents(authors_mi, root))),
        "target_parents": json.dumps(target.tolist()),
        "learned_parents": json.dumps(learned.tolist()),
    }


def recover_chow_liu(
    ds: PreparedDataset,
    authors_mi: Sequence[np.ndarray],
    *,
    name: str,
    roots: str | Sequence[int],
    learning_rates: Sequence[float],
    epochs: int,
    batch_size: int,
    max_train: int | None,
    max_folds: int,
    seed: int,
    split_seeds: Sequence[int] = (),
) -> list[dict]:
    """Run the recovery experiment on the first ``max_folds`` folds of a dataset.

    Parameters
    ----------
    ds : PreparedDataset
    authors_mi : sequence of numpy.ndarray
        The authors' conditional MI graph of each fold (all features).
    name : str
        Dataset name (the ``dataset`` column and error messages).
    roots : "all" or sequence of int
        Chow-Liu roots, indices into the kept features.
    learning_rates : sequence of float
    epochs, batch_size : int
    max_train : int or None
        Training rows kept per fold (stratified subsample; falsy: all).
    max_folds : int
    seed : int
        Base seed: the run of each spec of fold ``k`` uses ``derive_seed(seed, k, spec_id(spec))``.
    split_seeds : sequence of int
        With ``max_train``, the split seed of each fold (one per fold run): fold ``k`` keeps the
        rows :func:`bnstudy.studies.tan.protocol.training_split` keeps with ``split_seeds[k]``,
        those of the study's models on that fold (``train_tan``) when they keep as many.

    Returns
    -------
    list of dict
        One row per fold, root and learning rate, in that order.
    """
    n_folds = min(max_folds, len(ds.folds))
    if max_train and len(split_seeds) < n_folds:
        raise ValueError(
            f"max_train = {max_train} needs a split seed for each of {n_folds} folds, got "
            f"{len(split_seeds)}"
        )
    rows = []
    for k in range(n_folds):
        fold, n_states, keep = drop_constant_features(ds.folds[k], ds.n_states[k])
        if max_train:  # the rows depend on the labels and the seed only, not on the columns
            fold = training_split(
                fold, protocol="test", max_train_samples=max_train, seed=split_seeds[k]
            )
        D = keep.size
        # the maximum-likelihood TAN of these rows is the Chow-Liu tree of their CMI
        mi = conditional_mutual_information(fold.x_train, fold.y_train, n_states, ds.n_classes)
        theirs = authors_mi[k][np.ix_(keep, keep)]
        specs = recovery_specs(D, roots, learning_rates, f"{name} fold {k}")
        results = run_tan_experiments(
            specs,
            fold,
            n_states,
            ds.n_classes,
            mi_graph=mi,
            seed=[derive_seed(seed, k, spec_id(s)) for s in specs],
            n_epochs=epochs,
            batch_size=batch_size,
            eval_every=0,
        )
        for spec, res in zip(specs, results, strict=True):
            row = {
                "dataset": name,
                "fold": k,
                "root": spec["root"],
                "lr": spec["lr"],
                "features": D,
                "n_train": len(fold.y_train),
                "epochs": epochs,
                **recovery_row(res, spec["root"], mi, theirs),
                "test_error": res["test_error"],
                "seconds": res["seconds"],
            }
            rows.append(row)
            logger.info(
                "%s fold %d root %d lr %g: %d parents differ, CMI fraction %.4f, margin %.3f",
                name,
                k,
                spec["root"],
                spec["lr"],
                row["parents_differing"],
                row["cmi_fraction"],
                row["structure_margin"],
            )
    logger.info(
        "%s: Chow-Liu recovered in %d of %d runs",
        name,
        sum(r["recovered"] for r in rows),
        len(rows),
    )
    return rows
