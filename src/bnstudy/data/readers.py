"""Readers for the raw data files of the study, as laid out in the data mirror.

Every reader parses the real file format with vectorized numpy/pandas calls and raises
``ValueError`` naming the file (and the line, where it can) on malformed input. A file whose path
ends with a registered raw path is first checked against the registry's sha256
(:func:`bnstudy.data.integrity.verify_raw_file`): a file changed after it was fetched is an error,
not data.
"""

from __future__ import annotations

import gzip
import io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bnstudy.data.integrity import read_raw_payload, verify_raw_file

__all__ = [
    "ClassificationSplit",
    "SenateVotes",
    "contested",
    "read_bnc",
    "read_bnc_mi",
    "read_letter",
    "read_mnist",
    "read_satimage",
    "read_senate",
    "read_usps",
]

PathLike = str | os.PathLike

#: Senators dropped from the 109th Senate: the President and the two who served part of the term.
SENATE_EXCLUDED = ("BUSH", "CORZINE", "MENENDEZ")


@dataclass
class ClassificationSplit:
    """A train/test split of a classification dataset.

    Attributes
    ----------
    x_train, x_test : numpy.ndarray
        Features, one row (or image) per sample.
    y_train, y_test : numpy.ndarray
        int64 class indices ``0..C-1`` into ``classes``.
    classes : numpy.ndarray
        The original class labels.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray

    @property
    def n_features(self) -> int:
        """Number of features per sample (pixels for images)."""
        return int(np.prod(self.x_train.shape[1:], dtype=np.int64))

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return len(self.classes)


def _encode(y_train: np.ndarray, y_test: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Map labels to int64 indices into their sorted unique values (train and test together)."""
    classes, codes = np.unique(np.concatenate([y_train, y_test]), return_inverse=True)
    codes = codes.astype(np.int64)
    return codes[: len(y_train)], codes[len(y_train) :], classes


def _open_text(path: Path):
    return gzip.open(path, "rt") if path.name.endswith(".gz") else open(path)


def _first_bad_line(path: Path, n_fields: int, delimiter: str | None, dtypes: list[type]) -> str:
    """Describe the first malformed line of a text table (only called after parsing failed)."""
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            fields = line.split(delimiter)
            if len(fields) != n_fields:
                return f"line {lineno}: expected {n_fields} fields, found {len(fields)}"
            for column, (field, kind) in enumerate(zip(fields, dtypes, strict=True), start=1):
                try:
                    kind(field)
                except ValueError:
                    return f"line {lineno}, field {column}: cannot parse {field.strip()!r}"
    return "no malformed line found"


def _load_table(
    path: PathLike, n_fields: int, dtype: type, *, delimiter: str | None = None, usecols=None
) -> np.ndarray:
    """``np.loadtxt`` with a fixed number of fields per line and errors that name file and line.

    ``dtype`` is a Python type (``int`` or ``float``) that every used field must parse as.
    """
    path = Path(path)
    text = read_raw_payload(path).decode("utf-8", errors="replace")  # verified, read once
    dtypes = [str] * n_fields
    for column in range(n_fields) if usecols is None else usecols:
        dtypes[column] = dtype
    np_dtype = np.int64 if dtype is int else np.float64
    try:
        table = np.loadtxt(
            io.StringIO(text), dtype=np_dtype, delimiter=delimiter, usecols=usecols, ndmin=2
        )
    except ValueError as exc:
        raise ValueError(
            f"{path}: malformed table ({_first_bad_line(path, n_fields, delimiter, dtypes)}): {exc}"
        ) from exc
    expected = n_fields if usecols is None else len(usecols)
    if table.shape[0] == 0:
        raise ValueError(f"{path}: no data rows")
    if table.shape[1] != expected:
        raise ValueError(f"{path}: expected {n_fields} fields per line, found {table.shape[1]}")
    return table


def read_satimage(trn_path: PathLike, tst_path: PathLike) -> ClassificationSplit:
    """Read UCI Statlog Landsat Satellite (``sat.trn``, ``sat.tst``).

    Returns
    -------
    ClassificationSplit
        4435 / 2000 samples, 36 int64 features in 0..255, classes 1, 2, 3, 4, 5, 7.
    """
    train = _load_table(trn_path, 37, int)
    test = _load_table(tst_path, 37, int)
    y_train, y_test, classes = _encode(train[:, -1], test[:, -1])
    return ClassificationSplit(train[:, :-1], y_train, test[:, :-1], y_test, classes)


def read_letter(path: PathLike, n_train: int = 16000) -> ClassificationSplit:
    """Read UCI Letter Recognition with the standard split (first ``n_train`` rows train).

    Returns
    -------
    ClassificationSplit
        16000 / 4000 samples, 16 int64 features in 0..15, classes ``"A"..."Z"``.
    """
    x = _load_table(path, 17, int, delimiter=",", usecols=range(1, 17))
    labels = np.loadtxt(path, dtype=str, delimiter=",", usecols=0, ndmin=1)  # verified above
    if not 0 < n_train < len(labels):
        raise ValueError(f"{path}: n_train={n_train} is outside 1..{len(labels) - 1}")
    y_train, y_test, classes = _encode(labels[:n_train], labels[n_train:])
    return ClassificationSplit(x[:n_train], y_train, x[n_train:], y_test, classes)


def read_usps(train_gz: PathLike, test_gz: PathLike) -> ClassificationSplit:
    """Read the ESL version of USPS digits (``zip.train.gz``, ``zip.test.gz``).

    Returns
    -------
    ClassificationSplit
        7291 / 2007 samples, 256 float64 grey values in [-1, 1] (16x16 images), digits 0..9.
    """
    parts = []
    for path in (train_gz, test_gz):
        table = _load_table(path, 257, float)
        labels = table[:, 0]
        bad = np.flatnonzero((labels != np.round(labels)) | (labels < 0) | (labels > 9))
        if bad.size:
            raise ValueError(f"{path}, line {bad[0] + 1}: label {labels[bad[0]]} is not a digit")
        bad = np.flatnonzero(np.any(np.abs(table[:, 1:]) > 1.0, axis=1))
        if bad.size:
            raise ValueError(f"{path}, line {bad[0] + 1}: grey value outside [-1, 1]")
        parts.append((table[:, 1:], labels.astype(np.int64)))
    (x_train, labels_train), (x_test, labels_test) = parts
    y_train, y_test, classes = _encode(labels_train, labels_test)
    return ClassificationSplit(x_train, y_train, x_test, y_test, classes)


_IDX_MAGIC = {1: 2049, 3: 2051}  # labels (1-d), images (3-d); both uint8


def _read_idx(path: PathLike, ndim: int) -> np.ndarray:
    """Read a (gzipped) idx file of unsigned bytes with ``ndim`` dimensions."""
    path = Path(path)
    data = read_raw_payload(path)  # verified against the registry, decompressed once
    header = 4 * (1 + ndim)
    if len(data) < header:
        raise ValueError(f"{path}: too short for an idx header ({len(data)} bytes)")
    magic, *dims = np.frombuffer(data, dtype=">u4", count=1 + ndim).tolist()
    if magic != _IDX_MAGIC[ndim]:
        raise ValueError(
            f"{path}: bad idx magic number {magic:#010x}, expected {_IDX_MAGIC[ndim]:#010x} "
            f"(uint8, {ndim}-d)"
        )
    expected = int(np.prod(dims, dtype=np.int64))
    if len(data) - header != expected:
        raise ValueError(
            f"{path}: header says {dims} ({expected} bytes), payload has {len(data) - header}"
        )
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(dims)


def read_mnist(
    train_images: PathLike, train_labels: PathLike, test_images: PathLike, test_labels: PathLike
) -> ClassificationSplit:
    """Read MNIST from its four idx files (gzipped or not).

    Returns
    -------
    ClassificationSplit
        60000 / 10000 uint8 images of shape (28, 28), digits 0..9.
    """
    splits = []
    for images_path, labels_path in ((train_images, train_labels), (test_images, test_labels)):
        images = _read_idx(images_path, 3)
        labels = _read_idx(labels_path, 1)
        if len(images) != len(labels):
            raise ValueError(
                f"{images_path} has {len(images)} images but {labels_path} has {len(labels)} labels"
            )
        splits.append((images, labels))
    (x_train, labels_train), (x_test, labels_test) = splits
    y_train, y_test, classes = _encode(labels_train, labels_test)
    return ClassificationSplit(x_train, y_train, x_test, y_test, classes)


def _npz_get(npz, path: PathLike, key: str) -> np.ndarray:
    if key not in npz.files:
        raise ValueError(f"{path}: missing key {key!r}; keys present: {', '.join(npz.files)}")
    return npz[key]


def read_bnc(npz_path: PathLike) -> list[ClassificationSplit]:
    """Read a discretized dataset released with Roth & Pernkopf (2020), one split per fold.

    The file holds ``n_folds`` and, for ``K = 1..n_folds``, ``x_tr_foldK``, ``t_tr_foldK``,
    ``x_te_foldK``, ``t_te_foldK``: uint8 feature states starting at 1 and class labels
    starting at 0.

    Returns
    -------
    list of ClassificationSplit
        Features as 0-based int64 states; ``classes`` is ``arange(C)`` with ``C`` one more than
        the largest label in the file (as in the authors' code).

    References
    ----------
    W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
    Classifiers", PGM 2020; data from https://github.com/wroth8/bnc.
    """
    with np.load(io.BytesIO(read_raw_payload(npz_path)), allow_pickle=False) as npz:
        n_folds = int(_npz_get(npz, npz_path, "n_folds"))
        folds = [
            {
                key: _npz_get(npz, npz_path, f"{key}_fold{k}")
                for key in ("x_tr", "t_tr", "x_te", "t_te")
            }
            for k in range(1, n_folds + 1)
        ]
    if n_folds < 1:
        raise ValueError(f"{npz_path}: n_folds is {n_folds}")
    n_classes = 1 + max(int(max(fold["t_tr"].max(), fold["t_te"].max())) for fold in folds)
    classes = np.arange(n_classes, dtype=np.int64)
    splits = []
    for k, fold in enumerate(folds, start=1):
        for key in ("x_tr", "x_te"):
            if fold[key].ndim != 2 or fold[key].size == 0 or fold[key].min() < 1:
                raise ValueError(
                    f"{npz_path}: {key}_fold{k} must be a non-empty 2-d array of states >= 1"
                )
        for key in ("t_tr", "t_te"):
            if fold[key].min() < 0 or len(fold[key]) != len(fold["x" + key[1:]]):
                raise ValueError(
                    f"{npz_path}: {key}_fold{k} must hold one label >= 0 per row of x{key[1:]}"
                )
        splits.append(
            ClassificationSplit(
                x_train=fold["x_tr"].astype(np.int64) - 1,
                y_train=fold["t_tr"].astype(np.int64),
                x_test=fold["x_te"].astype(np.int64) - 1,
                y_test=fold["t_te"].astype(np.int64),
                classes=classes,
            )
        )
    return splits


def read_bnc_mi(npz_path: PathLike, *, as_stored: bool = False) -> list[np.ndarray]:
    """Read the conditional mutual-information graphs I(Xi; Xj | C), one per fold.

    The files hold ``mi_graph_K`` for ``K = 1, 2, ...``: lower-triangular (D, D) arrays with
    I(Xi; Xj | C) below the diagonal (i > j) and the conditional entropy H(Xi | C) on it.

    Parameters
    ----------
    npz_path : path-like
        A ``*_mi.npz`` file.
    as_stored : bool
        Return the arrays as stored instead of symmetrized.

    Returns
    -------
    list of numpy.ndarray
        By default symmetric float64 (D, D) arrays with I(Xi; Xj | C) off the diagonal and zeros on
        it (the edge weights of a Chow-Liu TAN).
    """
    with np.load(io.BytesIO(read_raw_payload(npz_path)), allow_pickle=False) as npz:
        keys = sorted(
            (key for key in npz.files if key.startswith("mi_graph_")),
            key=lambda key: int(key.removeprefix("mi_graph_")),
        )
        if not keys:
            raise ValueError(
                f"{npz_path}: no mi_graph_K keys; keys present: {', '.join(npz.files)}"
            )
        expected = [f"mi_graph_{k}" for k in range(1, len(keys) + 1)]
        if keys != expected:
            raise ValueError(f"{npz_path}: folds are not numbered 1..{len(keys)}: {keys}")
        graphs = [np.asarray(npz[key], dtype=np.float64) for key in keys]
    for key, graph in zip(keys, graphs, strict=True):
        if graph.ndim != 2 or graph.shape[0] != graph.shape[1]:
            raise ValueError(f"{npz_path}: {key} is not square: shape {graph.shape}")
        if np.triu(graph, 1).any():
            raise ValueError(f"{npz_path}: {key} has entries above the diagonal")
    if as_stored:
        return graphs
    symmetric = []
    for graph in graphs:
        lower = np.tril(graph, -1)
        symmetric.append(lower + lower.T)
    return symmetric


@dataclass
class SenateVotes:
    """Roll-call votes of the 109th US Senate.

    Attributes
    ----------
    senators : numpy.ndarray
        Names of the senators kept, as in the file (e.g. ``"SESSIONS (R AL)"``).
    parties : numpy.ndarray
        Party of each senator (``"R"``, ``"D"``, ``"Indep"``); empty strings if the file has none.
    sessions : dict of int to numpy.ndarray
        Session -> (n_rollcalls, n_senators) int8 votes, +1 yea and -1 nay or missing.
    yeas : dict of int to numpy.ndarray
        Session -> number of yeas per roll call among the kept senators.
    """

    senators: np.ndarray
    parties: np.ndarray
    sessions: dict[int, np.ndarray]
    yeas: dict[int, np.ndarray]


def read_senate(rda_path: PathLike) -> SenateVotes:
    """Read ``s109.rda`` (R package pscl) and binarize the votes.

    Drops BUSH (the President), CORZINE and MENENDEZ, leaving 99 senators. Poole-Rosenthal codes
    1-3 (yea) become +1; 4-6 (nay), 7-9 (missing) and 0 (not in office) become -1. Roll calls are
    grouped by the ``session`` column of ``vote.data``.

    References
    ----------
    Q. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
    Graphical Models", NIPS 2013, Section 6 (Senate voting data).
    """
    import rdata

    verify_raw_file(rda_path)
    with warnings.catch_warnings():
        # rdata warns about the unknown string encoding and the R classes it leaves unconverted.
        warnings.simplefilter("ignore", UserWarning)
        try:
            parsed = rdata.read_rda(rda_path)
        except Exception as exc:  # rdata raises assorted errors on a non-R file
            raise ValueError(f"{rda_path}: cannot be read as an R data file: {exc}") from exc
    if "s109" not in parsed:
        raise ValueError(f"{rda_path}: no object 's109'; objects: {', '.join(map(str, parsed))}")
    rollcall = parsed["s109"]
    for key in ("votes", "vote.data"):
        if key not in rollcall:
            raise ValueError(f"{rda_path}: s109 has no {key!r}")
    votes = rollcall["votes"]
    codes = np.asarray(votes.values)
    names = np.asarray(votes.coords[votes.dims[0]].values).astype(str)
    sessions_of = rollcall["vote.data"]["session"].to_numpy(dtype=np.int64)
    if codes.shape != (len(names), len(sessions_of)):
        raise ValueError(
            f"{rda_path}: votes has shape {codes.shape} but there are {len(names)} legislators and "
            f"{len(sessions_of)} roll calls in vote.data"
        )
    if np.isnan(codes).any() or not np.isin(codes, np.arange(10)).all():
        raise ValueError(f"{rda_path}: votes hold values outside the Poole-Rosenthal codes 0..9")

    surnames = np.char.partition(names, " (")[:, 0]
    missing = sorted(set(SENATE_EXCLUDED) - set(surnames))
    if missing:
        raise ValueError(f"{rda_path}: legislators {missing} to be excluded are not in the file")
    keep = ~np.isin(surnames, SENATE_EXCLUDED)

    legis = rollcall.get("legis.data")
    if legis is not None and "party" in legis:
        parties = legis["party"].reindex(names).astype(str).to_numpy()[keep]
    else:
        parties = np.full(int(keep.sum()), "", dtype=str)

    binary = np.where((codes[keep] >= 1) & (codes[keep] <= 3), 1, -1).astype(np.int8).T
    sessions = {int(s): binary[sessions_of == s] for s in np.unique(sessions_of)}
    yeas = {s: (v == 1).sum(axis=1) for s, v in sessions.items()}
    return SenateVotes(names[keep], parties, sessions, yeas)


def contested(votes: np.ndarray, low: int = 10, high: int = 90) -> np.ndarray:
    """Mask of contested roll calls: those with ``low <= #yeas <= high``.

    Parameters
    ----------
    votes : numpy.ndarray
        (n_rollcalls, n_voters) array, +1 for yea.
    low, high : int
        Inclusive bounds on the number of yeas.

    Returns
    -------
    numpy.ndarray
        Boolean mask over roll calls.
    """
    votes = np.asarray(votes)
    if votes.ndim != 2:
        raise ValueError(f"votes must be 2-d (roll calls x voters), got shape {votes.shape}")
    n_yeas = (votes == 1).sum(axis=1)
    return (n_yeas >= low) & (n_yeas <= high)
