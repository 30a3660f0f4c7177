"""Readers on the real mirrored files, and their errors on malformed input."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from bnstudy.data.readers import (
    contested,
    read_bnc,
    read_bnc_mi,
    read_letter,
    read_mnist,
    read_satimage,
    read_senate,
    read_usps,
)
from bnstudy.data.registry import dataset


def _files(mirror, name):
    return [mirror / path for path in dataset(name).files]


def test_satimage(mirror):
    split = read_satimage(*_files(mirror, "satimage"))
    assert split.x_train.shape == (4435, 36) and split.x_test.shape == (2000, 36)
    assert split.x_train.dtype == np.int64
    assert split.n_features == 36 and split.n_classes == 6
    np.testing.assert_array_equal(split.classes, [1, 2, 3, 4, 5, 7])
    assert split.y_train.dtype == np.int64
    assert set(np.unique(split.y_train)) == set(range(6))
    assert 0 <= split.x_train.min() and split.x_train.max() <= 255


def test_letter(mirror):
    (path,) = _files(mirror, "letter")
    split = read_letter(path)
    assert split.x_train.shape == (16000, 16) and split.x_test.shape == (4000, 16)
    assert split.n_classes == 26
    assert "".join(split.classes) == "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    assert split.x_train.min() == 0 and split.x_train.max() == 15
    # first line of the file: T,2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8
    assert split.classes[split.y_train[0]] == "T"
    np.testing.assert_array_equal(
        split.x_train[0], [2, 8, 3, 5, 1, 8, 13, 0, 6, 6, 10, 8, 0, 8, 0, 8]
    )


def test_usps(mirror):
    split = read_usps(*_files(mirror, "usps"))
    assert split.x_train.shape == (7291, 256) and split.x_test.shape == (2007, 256)
    assert split.n_classes == 10
    assert -1.0 <= split.x_train.min() and split.x_train.max() <= 1.0
    # class counts from zip.info.txt
    expected = [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]
    np.testing.assert_array_equal(np.bincount(split.y_train), expected)


def test_mnist(mirror):
    split = read_mnist(*_files(mirror, "mnist"))
    assert split.x_train.shape == (60000, 28, 28) and split.x_test.shape == (10000, 28, 28)
    assert split.x_train.dtype == np.uint8
    assert split.n_features == 784 and split.n_classes == 10
    assert len(split.y_train) == 60000 and len(split.y_test) == 10000


def test_bnc_letter(mirror):
    (split,) = read_bnc(mirror / "bnc/letter.npz")
    assert split.x_train.shape == (13342, 16) and split.x_test.shape == (6658, 16)
    assert split.n_classes == 26
    assert split.x_train.dtype == np.int64 and split.x_train.min() == 0


def test_bnc_satimage(mirror):
    folds = read_bnc(mirror / "bnc/satimage.npz")
    sizes = [(len(f.y_train), len(f.y_test)) for f in folds]
    assert sizes == [(5151, 1284), (5153, 1282), (5156, 1279), (5153, 1282), (5151, 1284)]
    assert all(f.n_features == 36 and f.n_classes == 6 for f in folds)
    # the five test folds partition the 6435 samples of train + test
    assert all(a + b == 6435 for a, b in sizes)


def test_bnc_usps(mirror):
    (split,) = read_bnc(mirror / "bnc/usps.npz")
    assert split.x_train.shape == (7340, 256) and split.x_test.shape == (3660, 256)
    np.testing.assert_array_equal(np.bincount(split.y_train), [734] * 10)
    assert split.n_classes == 10


@pytest.mark.parametrize(
    ("name", "n_folds", "dim"),
    [("letter", 1, 16), ("satimage", 5, 36), ("usps", 1, 256), ("mnist", 1, 196)],
)
def test_bnc_mi(mirror, name, n_folds, dim):
    graphs = read_bnc_mi(mirror / f"bnc/{name}_mi.npz")
    assert len(graphs) == n_folds
    for graph in graphs:
        assert graph.shape == (dim, dim)
        np.testing.assert_array_equal(graph, graph.T)
        assert not np.diag(graph).any() and graph.min() >= 0
    stored = read_bnc_mi(mirror / f"bnc/{name}_mi.npz", as_stored=True)
    np.testing.assert_array_equal(np.tril(stored[0], -1), np.tril(graphs[0], -1))
    assert (np.diag(stored[0]) > 0).any()  # H(Xi | C) on the stored diagonal


def test_senate(mirror):
    votes = read_senate(mirror / "senate/s109.rda")
    assert len(votes.senators) == 99 and len(votes.parties) == 99
    assert not any(name.startswith(("BUSH ", "CORZINE ", "MENENDEZ ")) for name in votes.senators)
    assert set(votes.parties) == {"R", "D", "Indep"}
    assert sorted(votes.sessions) == [1, 2]
    assert votes.sessions[1].shape == (366, 99) and votes.sessions[2].shape == (279, 99)
    assert votes.sessions[1].dtype == np.int8
    assert set(np.unique(votes.sessions[1])) == {-1, 1}
    assert int(contested(votes.sessions[1]).sum()) == 292
    assert int(contested(votes.sessions[2]).sum()) == 222
    np.testing.assert_array_equal(votes.yeas[2], (votes.sessions[2] == 1).sum(axis=1))


def test_contested():
    votes = -np.ones((3, 100), dtype=np.int8)
    votes[0, :9] = 1
    votes[1, :10] = 1
    votes[2, :91] = 1
    np.testing.assert_array_equal(contested(votes), [False, True, False])
    with pytest.raises(ValueError, match="2-d"):
        contested(np.ones(5))


def test_satimage_short_row(mirror, tmp_path):
    lines = (mirror / "uci/satimage/sat.tst").read_text().splitlines(keepends=True)
    bad = tmp_path / "sat.trn"
    bad.write_text("".join(lines[:4]) + " ".join(lines[4].split()[:-2]) + "\n" + "".join(lines[5:]))
    with pytest.raises(ValueError, match=r"sat\.trn.*line 5: expected 37 fields, found 35"):
        read_satimage(bad, mirror / "uci/satimage/sat.tst")


def test_satimage_bad_value(mirror, tmp_path):
    bad = tmp_path / "sat.tst"
    bad.write_text("1 " * 36 + "3\n" + "1 " * 20 + "x " + "1 " * 15 + "3\n")
    with pytest.raises(ValueError, match=r"sat\.tst.*line 2, field 21: cannot parse 'x'"):
        read_satimage(mirror / "uci/satimage/sat.trn", bad)


def test_satimage_wrong_width(mirror, tmp_path):
    bad = tmp_path / "sat.tst"
    bad.write_text("1 2 3\n4 5 6\n")
    with pytest.raises(ValueError, match=r"sat\.tst: expected 37 fields"):
        read_satimage(mirror / "uci/satimage/sat.trn", bad)


def test_usps_bad_label(tmp_path):
    bad = tmp_path / "zip.test.gz"
    row = " ".join(["0.5"] * 256)
    bad.write_bytes(gzip.compress(f"1 {row}\n12 {row}\n".encode()))
    with pytest.raises(ValueError, match=r"zip\.test\.gz, line 2: label 12"):
        read_usps(bad, bad)


def test_mnist_bad_magic(mirror, tmp_path):
    files = _files(mirror, "mnist")
    bad = tmp_path / "t10k-labels-idx1-ubyte.gz"
    payload = bytearray(gzip.decompress(files[3].read_bytes()))
    payload[3] = 0x03
    bad.write_bytes(gzip.compress(bytes(payload)))
    with pytest.raises(ValueError, match=r"t10k-labels-idx1-ubyte\.gz: bad idx magic"):
        read_mnist(files[0], files[1], files[2], bad)


def test_mnist_truncated(mirror, tmp_path):
    files = _files(mirror, "mnist")
    bad = tmp_path / "t10k-labels-idx1-ubyte"
    bad.write_bytes(gzip.decompress(files[3].read_bytes())[:-1])
    with pytest.raises(ValueError, match=r"t10k-labels-idx1-ubyte: header says"):
        read_mnist(files[0], files[1], files[2], bad)


def test_bnc_missing_key(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, n_folds=np.int64(1), x_tr_fold1=np.ones((2, 3), np.uint8))
    with pytest.raises(ValueError, match=r"bad\.npz: missing key 't_tr_fold1'"):
        read_bnc(bad)


def test_bnc_zero_state(tmp_path):
    bad = tmp_path / "bad.npz"
    x = np.ones((2, 3), np.uint8)
    t = np.zeros(2, np.uint8)
    np.savez(bad, n_folds=np.int64(1), x_tr_fold1=x * 0, t_tr_fold1=t, x_te_fold1=x, t_te_fold1=t)
    with pytest.raises(ValueError, match=r"bad\.npz: x_tr_fold1"):
        read_bnc(bad)


def test_bnc_mi_no_graphs(tmp_path):
    bad = tmp_path / "bad_mi.npz"
    np.savez(bad, other=np.zeros(2))
    with pytest.raises(ValueError, match=r"bad_mi\.npz: no mi_graph_K"):
        read_bnc_mi(bad)


def test_senate_not_rda(tmp_path):
    bad = tmp_path / "s109.rda"
    bad.write_bytes(b"definitely not R data")
    with pytest.raises(ValueError, match=r"s109\.rda"):
        read_senate(bad)
