"""Prepared datasets: discretized splits, the npz format, and agreement with the authors' release."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from bnstudy.data.discretize import MDLDiscretizer
from bnstudy.data.integrity import (
    CONTENT_HASH_KEY,
    ChecksumError,
    npz_content_sha256,
    save_verified_npz,
)
from bnstudy.data.prepared import (
    PreparedDataset,
    compare_state_counts,
    discretize_split,
    from_bnc,
    load_prepared,
    prepare_mnist,
    save_prepared,
)
from bnstudy.data.readers import ClassificationSplit, read_bnc, read_letter, read_satimage

# Table A.4 of targets.md: states per feature of the authors' letter (train fold), sorted.
LETTER_AUTHORS_STATES = [1, 3, 4, 5, 5, 8, 8, 9, 9, 13, 13, 13, 13, 14, 14, 14]


# ------------------------------------------------------------------ helpers
def _all_rows(split: ClassificationSplit) -> tuple[np.ndarray, np.ndarray]:
    return np.vstack([split.x_train, split.x_test]), np.concatenate([split.y_train, split.y_test])


def _authors_rows(
    x_raw: np.ndarray, y_raw: np.ndarray, fold: ClassificationSplit
) -> tuple[np.ndarray, np.ndarray]:
    """Which raw rows are the authors' training rows, and their state of every raw value.

    The authors' train + test of a fold hold every raw row once, discretized by a monotone map per
    feature, so sorting a raw column and the matching column of their states aligns the two: that
    gives their state of every raw value. Rows are then matched on (class, states); rows whose key
    occurs in both their train and test cannot be told apart and go to train first.
    """
    x_auth, _ = _all_rows(fold)
    codes = np.empty_like(x_raw, dtype=np.int64)
    for j in range(x_raw.shape[1]):
        order = np.argsort(x_raw[:, j], kind="stable")
        codes[order, j] = np.sort(x_auth[:, j])
        # one state per raw value, i.e. the map is a function (and monotone by construction)
        _, first = np.unique(x_raw[order, j], return_index=True)
        assert np.all(np.diff(codes[order, j]) >= 0)
        per_value = np.split(codes[order, j], first[1:])
        assert all(v.min() == v.max() for v in per_value)
    keys = [(int(c), *row) for c, row in zip(y_raw, codes.tolist(), strict=True)]
    need: dict[tuple, int] = {}
    for c, row in zip(fold.y_train.tolist(), fold.x_train.tolist(), strict=True):
        need[(c, *row)] = need.get((c, *row), 0) + 1
    is_train = np.zeros(len(keys), dtype=bool)
    for i, key in enumerate(keys):
        if need.get(key, 0) > 0:
            is_train[i] = True
            need[key] -= 1
    assert is_train.sum() == len(fold.y_train) and not any(need.values())
    return is_train, codes


def _same_cuts(mdl: MDLDiscretizer, x_raw: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per feature: does our discretization map every raw value to the authors' state?"""
    ours = mdl.transform(x_raw)
    return np.array(
        [np.array_equal(ours[:, j], codes[:, j]) for j in range(x_raw.shape[1])], dtype=bool
    )


@pytest.fixture(scope="module")
def letter(mirror: Path):
    raw = read_letter(mirror / "uci/letter/letter-recognition.data")
    authors = read_bnc(mirror / "bnc/letter.npz")
    return raw, authors


@pytest.fixture(scope="module")
def satimage(mirror: Path):
    raw = read_satimage(mirror / "uci/satimage/sat.trn", mirror / "uci/satimage/sat.tst")
    authors = read_bnc(mirror / "bnc/satimage.npz")
    return raw, authors


# ------------------------------------------------------- authors' release
def test_from_bnc_letter_state_counts(letter):
    _, authors = letter
    ds = from_bnc("bnc_letter", authors)
    assert ds.n_folds == 1 and ds.n_features == 16 and ds.n_classes == 26
    assert sorted(ds.n_states[0].tolist()) == LETTER_AUTHORS_STATES
    assert ds.n_states[0].dtype == np.int64
    assert "letter.npz" in ds.source


def test_from_bnc_satimage_folds(satimage):
    _, authors = satimage
    ds = from_bnc("bnc_satimage", authors)
    assert ds.n_folds == 5 and ds.n_features == 36 and ds.n_classes == 6
    assert int(ds.n_states[0].sum()) == 417  # targets.md A.4, fold 1
    assert len({int(s.sum()) for s in ds.n_states}) > 1  # fit per fold, so counts differ


# --------------------------------------------- our MDL vs the authors' data
def test_letter_standard_split_vs_authors(letter):
    # Measured: 12/16 features with the authors' count (mean |diff| 0.31). Our fit sees the
    # standard first 16000 rows, theirs 13342 other rows, so some counts must differ; a broken
    # criterion or entropy changes most of the 16 counts (fitting on all 20000 rows: 12/16,
    # on their test rows: 2/16).
    raw, authors = letter
    _, n_states = discretize_split(raw)
    cmp = compare_state_counts(n_states, from_bnc("bnc_letter", authors).n_states[0])
    assert cmp["features"] == 16
    assert cmp["agreement"] >= 12 / 16
    assert cmp["mean_abs_diff"] <= 0.35


def test_letter_authors_train_rows_vs_authors(letter):
    # Fit on the authors' own 13342 training rows (identified by matching their discretized rows
    # against the raw file). 3476 raw rows share their (class, states) key with a row of the other
    # part, so which of them are training rows is unknowable; over 40 random assignments of these
    # rows our cut sets equal theirs in 13 to 16 features (16 in 6 of 40). With the deterministic
    # first-come assignment used here we measured 15/16 equal counts and 14/16 identical cut sets
    # with "best_accepted" (14/16 and 13/16 with Fayyad & Irani's "best").
    raw, authors = letter
    x_raw, y_raw = _all_rows(raw)
    is_train, codes = _authors_rows(x_raw, y_raw, authors[0])
    theirs = from_bnc("bnc_letter", authors).n_states[0]
    for selection, min_equal, min_same_cuts in (("best_accepted", 15, 14), ("best", 14, 13)):
        mdl = MDLDiscretizer(cut_selection=selection).fit(x_raw[is_train], y_raw[is_train])
        cmp = compare_state_counts(mdl.n_states_, theirs)
        assert cmp["equal"] >= min_equal, (selection, mdl.n_states_, theirs)
        assert _same_cuts(mdl, x_raw, codes).sum() >= min_same_cuts


def test_satimage_reproduces_authors_folds(satimage):
    # Fit per fold on the authors' training rows: "best_accepted" reproduces every state of every
    # row of all 5 folds (36/36 features each, including test values equal to a cut, which go to
    # the upper bin); Fayyad & Irani's "best" differs in one feature of folds 2-5 (an extra cut
    # at the end of the range that the best cut's MDLP test rejects).
    raw, authors = satimage
    x_raw, y_raw = _all_rows(raw)
    for k, fold in enumerate(authors):
        is_train, codes = _authors_rows(x_raw, y_raw, fold)
        exact = MDLDiscretizer(cut_selection="best_accepted").fit(x_raw[is_train], y_raw[is_train])
        assert _same_cuts(exact, x_raw, codes).all(), f"fold {k + 1}"
        np.testing.assert_array_equal(exact.n_states_, from_bnc("s", [fold]).n_states[0])
        fayyad = MDLDiscretizer().fit(x_raw[is_train], y_raw[is_train])
        assert _same_cuts(fayyad, x_raw, codes).sum() >= 35, f"fold {k + 1}"


def test_satimage_standard_split_state_total(satimage):
    # On the UCI split (4435 training rows, not the authors' ~5151) MDL finds fewer cuts: 385
    # states in total against 417 in their fold 1; all 36 features are cut.
    raw, _ = satimage
    _, n_states = discretize_split(raw)
    assert n_states.shape == (36,) and n_states.min() >= 2
    assert 350 <= n_states.sum() <= 417


# ---------------------------------------------------------- discretize_split
def _toy_split(rng: np.random.Generator, n_train: int = 400, n_test: int = 100):
    x = rng.normal(size=(n_train + n_test, 3))
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0.5)
    x[n_train:, 0] *= 10  # test values outside the training range
    return ClassificationSplit(
        x[:n_train], y[:n_train], x[n_train:], y[n_train:], classes=np.array(["a", "b", "c"])
    )


def test_discretize_split_fits_on_train_only():
    split = _toy_split(np.random.default_rng(0))
    out, n_states = discretize_split(split)
    reference = MDLDiscretizer().fit(split.x_train, split.y_train)
    np.testing.assert_array_equal(n_states, reference.n_states_)
    np.testing.assert_array_equal(out.x_test, reference.transform(split.x_test))
    assert out.x_train.dtype == np.int64 and out.x_test.dtype == np.int64
    assert np.all(out.x_test < n_states) and np.all(out.x_test >= 0)
    np.testing.assert_array_equal(out.y_test, split.y_test)
    np.testing.assert_array_equal(out.classes, split.classes)
    # changing the test part changes nothing learned
    shifted = ClassificationSplit(
        split.x_train, split.y_train, split.x_test + 100, split.y_test, split.classes
    )
    _, n_states_shifted = discretize_split(shifted)
    np.testing.assert_array_equal(n_states, n_states_shifted)


def test_prepare_mnist_shapes_and_pixel_order():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, size=300)
    images = rng.integers(0, 256, size=(300, 28, 28)).astype(np.uint8)
    for c in range(3):  # a class-dependent bright block, so MDL finds cuts
        images[y == c, 4 * c : 4 * c + 8, 2:10] = 250
    split = ClassificationSplit(images[:200], y[:200], images[200:], y[200:], np.arange(3))
    c_order, states_c = prepare_mnist(split)
    assert c_order.x_train.shape == (200, 196) and c_order.x_test.shape == (100, 196)
    assert states_c.shape == (196,) and states_c.max() >= 2
    f_order, states_f = prepare_mnist(split, order="F")
    # feature 14 * r + c (row-major) is feature r + 14 * c (column-major)
    perm = np.arange(196).reshape(14, 14).T.ravel()
    np.testing.assert_array_equal(f_order.x_train, c_order.x_train[:, perm])
    np.testing.assert_array_equal(states_f, states_c[perm])
    bicubic, _ = prepare_mnist(split, resize="bicubic")
    assert bicubic.x_train.shape == (200, 196)
    with pytest.raises(ValueError, match="28, 28"):
        prepare_mnist(ClassificationSplit(images[:, :14], y, images[:, :14], y, np.arange(3)))
    with pytest.raises(ValueError, match="resize"):
        prepare_mnist(split, resize="nearest")


# ---------------------------------------------------------------- npz format
def _toy_prepared() -> PreparedDataset:
    rng = np.random.default_rng(2)
    folds, n_states = [], []
    for n in (30, 40):
        x = rng.integers(0, 3, size=(n, 4))
        folds.append(
            ClassificationSplit(
                x[:20],
                rng.integers(0, 2, 20),
                x[20:],
                rng.integers(0, 2, n - 20),
                np.array(["A", "B"]),
            )
        )
        n_states.append(np.array([3, 3, 3, 3]))
    return PreparedDataset(
        name="toy",
        folds=folds,
        n_states=n_states,
        classes=np.array(["A", "B"]),
        source="made up",
        image_shape=(2, 2),
    )


def test_save_load_round_trip(tmp_path):
    ds = _toy_prepared()
    path = tmp_path / "sub" / "toy.npz"
    save_prepared(path, ds)
    back = load_prepared(path)
    assert back.name == "toy" and back.source == "made up" and back.image_shape == (2, 2)
    assert back.n_folds == 2 and back.n_features == 4 and back.n_classes == 2
    np.testing.assert_array_equal(back.classes, ds.classes)
    for a, b, sa, sb in zip(ds.folds, back.folds, ds.n_states, back.n_states, strict=True):
        for key in ("x_train", "y_train", "x_test", "y_test"):
            np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
            assert getattr(b, key).dtype == np.int64
        np.testing.assert_array_equal(sa, sb)
    ds.image_shape = None
    save_prepared(path, ds)
    assert load_prepared(path).image_shape is None
    assert not list(path.parent.glob("*.part"))


def test_save_load_round_trip_authors_release(tmp_path, letter):
    ds = from_bnc("bnc_letter", letter[1])
    save_prepared(tmp_path / "bnc_letter.npz", ds)
    back = load_prepared(tmp_path / "bnc_letter.npz")
    np.testing.assert_array_equal(back.folds[0].x_test, ds.folds[0].x_test)
    np.testing.assert_array_equal(back.n_states[0], ds.n_states[0])


def test_load_malformed_names_file_and_key(tmp_path):
    path = tmp_path / "toy.npz"
    save_prepared(path, _toy_prepared())
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files if k not in ("y_test_1", CONTENT_HASH_KEY)}
    broken = tmp_path / "broken.npz"
    save_verified_npz(broken, **arrays)  # verifies, but is not a whole prepared dataset
    with pytest.raises(ValueError, match=r"broken\.npz.*y_test_1"):
        load_prepared(broken)
    save_verified_npz(broken, something=np.zeros(3))
    with pytest.raises(ValueError, match="n_folds"):
        load_prepared(broken)


def test_load_refuses_a_key_removed_after_writing(tmp_path):
    path = tmp_path / "toy.npz"
    save_prepared(path, _toy_prepared())
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files if k != "y_test_1"}
    np.savez(path, **arrays)
    with pytest.raises(ChecksumError, match=r"toy\.npz: content changed after it was written"):
        load_prepared(path)


def test_load_refuses_shuffled_labels_with_an_old_mtime(tmp_path):
    """The defect of issue 10: shuffled y_train, a valid file with its old mtime, was trained on."""
    path = tmp_path / "bnc_letter.npz"
    save_prepared(path, _toy_prepared())
    recorded = str(np.load(path)[CONTENT_HASH_KEY])
    assert load_prepared(path).n_folds == 2
    stat = path.stat()
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    y = arrays["y_train_0"]
    arrays["y_train_0"] = np.random.default_rng(0).permutation(y)
    assert not np.array_equal(arrays["y_train_0"], y)
    np.savez_compressed(path, **arrays)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(ChecksumError) as info:
        load_prepared(path)
    message = str(info.value)
    assert str(path) in message
    assert recorded in message
    assert npz_content_sha256(path.read_bytes()) in message
    assert f"snakemake --cores 1 --force {path}" in message


def test_load_refuses_a_file_without_recorded_hash(tmp_path):
    path = tmp_path / "old.npz"
    save_prepared(path, _toy_prepared())
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files if k != CONTENT_HASH_KEY}
    np.savez(path, **arrays)
    with pytest.raises(ChecksumError, match="no content hash recorded"):
        load_prepared(path)


def test_save_rejects_non_integer_states(tmp_path):
    ds = _toy_prepared()
    ds.folds[0].x_train = ds.folds[0].x_train.astype(float)
    with pytest.raises(ValueError, match="integers"):
        save_prepared(tmp_path / "x.npz", ds)


def test_compare_state_counts():
    cmp = compare_state_counts(np.array([1, 2, 3, 4]), np.array([1, 2, 5, 4]))
    assert cmp["features"] == 4 and cmp["equal"] == 3
    assert cmp["agreement"] == 0.75 and cmp["mean_abs_diff"] == 0.5
    assert cmp["total_ours"] == 10 and cmp["total_theirs"] == 12
    with pytest.raises(ValueError, match="equal length"):
        compare_state_counts([1, 2], [1, 2, 3])
