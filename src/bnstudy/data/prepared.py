"""Prepared (discretized) classification datasets and their on-disk format.

A prepared dataset is what every classifier of the TAN study trains on: one or more train/test
folds of 0-based int64 feature states, cached by the workflow as ``resources/datasets/<name>.npz``.
It comes either from a raw dataset discretized by our supervised MDL
(:func:`discretize_split`, :func:`prepare_mnist`) or from the authors' discretized release
(:func:`from_bnc`).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Literal

import numpy as np

from bnstudy.data.discretize import MDLDiscretizer, imresize_bicubic, pool_images
from bnstudy.data.integrity import load_verified_npz, save_verified_npz
from bnstudy.data.readers import ClassificationSplit

__all__ = [
    "PreparedDataset",
    "compare_state_counts",
    "discretize_split",
    "from_bnc",
    "load_prepared",
    "prepare_mnist",
    "save_prepared",
]

logger = logging.getLogger(__name__)

PathLike = str | os.PathLike


@dataclass
class PreparedDataset:
    """A discretized classification dataset: folds of 0-based int64 states.

    Attributes
    ----------
    name : str
        Dataset name (``"satimage"``, ``"bnc_letter"``, ...).
    folds : list of ClassificationSplit
        Discretized folds; ``x_*`` are ``(n, n_features)`` int64 states ``0..n_states-1`` and
        ``y_*`` int64 class indices into ``classes``.
    n_states : list of numpy.ndarray
        Per fold, the int64 number of states of each feature (fit on that fold's training split).
    classes : numpy.ndarray
        The original class labels.
    source : str
        Where the discretization comes from, e.g. ``"MDL (ours) on UCI sat.trn/sat.tst"`` or
        ``"authors' release bnc/satimage.npz"``.
    image_shape : tuple of int, optional
        ``(14, 14)`` for mnist, ``(16, 16)`` for usps, None for non-image data.
    """

    name: str
    folds: list[ClassificationSplit]
    n_states: list[np.ndarray]
    classes: np.ndarray
    source: str
    image_shape: tuple[int, int] | None = None

    @property
    def n_folds(self) -> int:
        """Number of train/test folds."""
        return len(self.folds)

    @property
    def n_features(self) -> int:
        """Number of (discretized) features."""
        return int(self.folds[0].x_train.shape[1])

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return len(self.classes)


def discretize_split(
    split: ClassificationSplit, discretizer: MDLDiscretizer | None = None
) -> tuple[ClassificationSplit, np.ndarray]:
    """Fit MDL discretization on the training part of ``split`` only and transform both parts.

    Parameters
    ----------
    split : ClassificationSplit
        Numeric features, ``x_*`` of shape ``(n, n_features)``.
    discretizer : MDLDiscretizer, optional
        The (unfitted) discretizer to use; default ``MDLDiscretizer()``. It is fitted in place.

    Returns
    -------
    discretized : ClassificationSplit
        int64 states; labels and classes are those of ``split``. Test values outside the training
        range fall in the first or last state.
    n_states : numpy.ndarray
        int64 states per feature.
    """
    discretizer = MDLDiscretizer() if discretizer is None else discretizer
    discretizer.fit(split.x_train, split.y_train)
    out = ClassificationSplit(
        x_train=discretizer.transform(split.x_train),
        y_train=np.asarray(split.y_train, dtype=np.int64),
        x_test=discretizer.transform(split.x_test),
        y_test=np.asarray(split.y_test, dtype=np.int64),
        classes=split.classes,
    )
    n_states = discretizer.n_states_.copy()
    logger.info(
        "MDL on %d training rows x %d features: %d states in total (%d features with 1 state)",
        len(split.y_train),
        n_states.size,
        int(n_states.sum()),
        int(np.count_nonzero(n_states == 1)),
    )
    return out, n_states


def prepare_mnist(
    split: ClassificationSplit,
    discretizer: MDLDiscretizer | None = None,
    *,
    resize: Literal["mean", "bicubic"] = "mean",
    order: Literal["C", "F"] = "C",
) -> tuple[ClassificationSplit, np.ndarray]:
    """Downsample MNIST to 14x14, flatten to 196 features and discretize (MDL on train only).

    Parameters
    ----------
    split : ClassificationSplit
        ``x_*`` uint8 images of shape ``(n, 28, 28)`` (as returned by ``read_mnist``).
    discretizer : MDLDiscretizer, optional
        Passed to :func:`discretize_split`.
    resize : {"mean", "bicubic"}, default "mean"
        ``"mean"``: 2x2 mean pooling (:func:`~bnstudy.data.discretize.pool_images`).
        ``"bicubic"``: MATLAB-style antialiased bicubic shrinking
        (:func:`~bnstudy.data.discretize.imresize_bicubic`).
    order : {"C", "F"}, default "C"
        Pixel order of the 196 features. ``"C"`` (row-major): feature ``14 * r + c`` is pixel
        (row ``r``, column ``c``). ``"F"`` (column-major): feature ``r + 14 * c`` is pixel
        ``(r, c)``.

    Returns
    -------
    discretized : ClassificationSplit
        ``(n, 196)`` int64 states.
    n_states : numpy.ndarray
        States per feature.

    Notes
    -----
    The authors' 14x14 MNIST (not released) is matched by ``resize="bicubic", order="F",
    discretizer=MDLDiscretizer(cut_selection="best_accepted")``: it reproduces their released
    conditional-MI graph ``bnc/mnist_mi.npz`` to a correlation of 0.9999 (their code comment says
    the images are stored column-wise). The defaults (2x2 mean, row-major) are the simpler recipe.
    """
    if resize not in ("mean", "bicubic"):
        raise ValueError(f"resize must be 'mean' or 'bicubic', got {resize!r}")
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    shrink = pool_images if resize == "mean" else imresize_bicubic

    def flatten(images: np.ndarray) -> np.ndarray:
        images = np.asarray(images)
        if images.ndim != 3 or images.shape[1:] != (28, 28):
            raise ValueError(f"MNIST images must have shape (n, 28, 28), got {images.shape}")
        small = shrink(images, 2)
        if order == "F":
            small = small.transpose(0, 2, 1)
        return small.reshape(len(small), -1)

    pooled = ClassificationSplit(
        x_train=flatten(split.x_train),
        y_train=split.y_train,
        x_test=flatten(split.x_test),
        y_test=split.y_test,
        classes=split.classes,
    )
    return discretize_split(pooled, discretizer)


def from_bnc(name: str, folds: list[ClassificationSplit]) -> PreparedDataset:
    """Wrap the authors' discretized folds (as read by ``read_bnc``, 0-based states).

    The number of states of a feature in a fold is one more than its largest state over that fold's
    training and test rows.
    """
    if not folds:
        raise ValueError(f"{name}: no folds")
    n_states = [
        (np.maximum(f.x_train.max(axis=0), f.x_test.max(axis=0)) + 1).astype(np.int64)
        for f in folds
    ]
    return PreparedDataset(
        name=name,
        folds=list(folds),
        n_states=n_states,
        classes=folds[0].classes,
        source=f"authors' release bnc/{name.removeprefix('bnc_')}.npz",
    )


def save_prepared(path: PathLike, ds: PreparedDataset) -> None:
    """Write a :class:`PreparedDataset` atomically to one ``.npz``, with its content hash.

    Keys: ``name``, ``source``, ``classes``, ``n_folds``, ``image_shape`` (``(0, 0)`` for None) and,
    for each fold ``k`` (0-based), ``x_train_{k}``, ``y_train_{k}``, ``x_test_{k}``, ``y_test_{k}``,
    ``n_states_{k}``; ``content_sha256`` holds the hash of all of them, which
    :func:`load_prepared` checks (:func:`bnstudy.data.integrity.save_verified_npz`).
    """
    if len(ds.n_states) != ds.n_folds:
        raise ValueError(f"{ds.name}: {ds.n_folds} folds but {len(ds.n_states)} n_states arrays")
    classes = np.asarray(ds.classes)
    if classes.dtype == object:
        classes = classes.astype(str)
    arrays: dict[str, np.ndarray] = {
        "name": np.array(ds.name),
        "source": np.array(ds.source),
        "classes": classes,
        "n_folds": np.array(ds.n_folds, dtype=np.int64),
        "image_shape": np.array(ds.image_shape or (0, 0), dtype=np.int64),
    }
    for k, (fold, n_states) in enumerate(zip(ds.folds, ds.n_states, strict=True)):
        arrays[f"x_train_{k}"] = _as_states(fold.x_train)
        arrays[f"y_train_{k}"] = np.asarray(fold.y_train, dtype=np.int64)
        arrays[f"x_test_{k}"] = _as_states(fold.x_test)
        arrays[f"y_test_{k}"] = np.asarray(fold.y_test, dtype=np.int64)
        arrays[f"n_states_{k}"] = np.asarray(n_states, dtype=np.int64)
    save_verified_npz(path, **arrays)


def _as_states(x: np.ndarray) -> np.ndarray:
    """States as int64, refusing anything that is not integral."""
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"discretized features must be integers, got dtype {x.dtype}")
    return x.astype(np.int64, copy=False)


def load_prepared(path: PathLike) -> PreparedDataset:
    """Read what :func:`save_prepared` wrote, after verifying its content hash.

    Raises
    ------
    bnstudy.data.integrity.ChecksumError
        If the content differs from the hash recorded when the file was written, or no hash is
        recorded; the message names the file, both hashes and how to rebuild it.
    ValueError
        Naming the file and the missing key if the file is not a prepared dataset.
    """
    npz = load_verified_npz(path)

    def get(key: str) -> np.ndarray:
        if key not in npz:
            raise ValueError(f"{path}: not a prepared dataset, missing key {key!r}")
        return npz[key]

    n_folds = int(get("n_folds"))
    classes = get("classes")
    folds, n_states = [], []
    for k in range(n_folds):
        folds.append(
            ClassificationSplit(
                x_train=get(f"x_train_{k}"),
                y_train=get(f"y_train_{k}"),
                x_test=get(f"x_test_{k}"),
                y_test=get(f"y_test_{k}"),
                classes=classes,
            )
        )
        n_states.append(get(f"n_states_{k}"))
    shape = tuple(int(s) for s in get("image_shape"))
    return PreparedDataset(
        name=str(get("name")),
        folds=folds,
        n_states=n_states,
        classes=classes,
        source=str(get("source")),
        image_shape=None if shape == (0, 0) else (shape[0], shape[1]),
    )


def compare_state_counts(ours: np.ndarray, theirs: np.ndarray) -> dict[str, float | int]:
    """Compare the number of states per feature of two discretizations of the same features.

    Parameters
    ----------
    ours, theirs : array-like of int, shape (d,)

    Returns
    -------
    dict
        ``features`` (d), ``equal`` (features with identical counts), ``agreement`` (equal / d),
        ``mean_abs_diff`` (mean absolute difference of the counts), and ``total_ours``,
        ``total_theirs`` (sums over features).
    """
    ours = np.asarray(ours, dtype=np.int64).ravel()
    theirs = np.asarray(theirs, dtype=np.int64).ravel()
    if ours.shape != theirs.shape or ours.size == 0:
        raise ValueError(
            f"state counts must be non-empty and of equal length, got {ours.size} and {theirs.size}"
        )
    equal = int(np.count_nonzero(ours == theirs))
    return {
        "features": int(ours.size),
        "equal": equal,
        "agreement": equal / ours.size,
        "mean_abs_diff": float(np.abs(ours - theirs).mean()),
        "total_ours": int(ours.sum()),
        "total_theirs": int(theirs.sum()),
    }
