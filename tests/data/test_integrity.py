"""Verified cache: raw files against the registry, prepared files against their recorded hash."""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from bnstudy.data.build import load_senate, prepare_dataset
from bnstudy.data.integrity import (
    CONTENT_HASH_KEY,
    ChecksumError,
    arrays_sha256,
    load_verified_npz,
    npz_content_sha256,
    read_raw_payload,
    registered_raw_file,
    save_verified_npz,
    verify_raw_file,
)
from bnstudy.data.prepared import load_prepared
from bnstudy.data.readers import read_bnc, read_letter, read_mnist, read_usps
from bnstudy.data.registry import RAW_FILES, raw_file
from bnstudy.data.summary import raw_files_verified, summarize_datasets
from bnstudy.networks import load_network


def _cached(mirror: Path, root: Path, relpath: str) -> Path:
    """A copy of a mirror file where the workflow caches it: ``root/resources/raw/<relpath>``."""
    dest = root / "resources" / "raw" / relpath
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(mirror / relpath, dest)
    return dest


def _cut(path: Path, keep: float = 0.5) -> None:
    """Truncate a file to a fraction of its size, keeping its modification time (as a bad disk)."""
    stat = path.stat()
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


# ------------------------------------------------------------------ raw files
def test_registered_raw_file_matches_the_path_suffix(tmp_path):
    assert registered_raw_file("resources/raw/uci/letter/letter-recognition.data") == raw_file(
        "uci/letter/letter-recognition.data"
    )
    assert registered_raw_file(tmp_path / "bif" / "alarm.bif.gz").path == "bif/alarm.bif.gz"
    # same file name, another directory: not the registry's file, read as it is
    assert registered_raw_file(tmp_path / "letter-recognition.data") is None
    assert registered_raw_file(tmp_path / "networks" / "alarm.bif.gz") is None
    assert verify_raw_file(tmp_path / "mine.bif") is None


def test_every_mirror_file_verifies(mirror):
    for relpath in RAW_FILES:
        assert verify_raw_file(mirror / relpath) == RAW_FILES[relpath]


def test_raw_file_cut_after_fetch_is_an_error(mirror, tmp_path):
    """The defect of issue 10: a raw file cut after the fetch was read by prepare_dataset."""
    path = _cached(mirror, tmp_path, "uci/letter/letter-recognition.data")
    assert read_letter(path).x_train.shape == (16000, 16)
    _cut(path)
    with pytest.raises(ChecksumError) as info:
        read_letter(path)
    message = str(info.value)
    assert str(path) in message
    assert raw_file("uci/letter/letter-recognition.data").sha256_content in message
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    assert actual in message
    assert f"snakemake --cores 1 --force {path}" in message
    # and nothing is prepared from it
    dest = tmp_path / "resources" / "datasets" / "letter.npz"
    with pytest.raises(ChecksumError):
        prepare_dataset("letter", [path], dest)
    assert not dest.exists()
    assert not dest.parent.exists() or not list(dest.parent.iterdir())  # no partial file either


def test_a_changed_byte_is_an_error_even_with_the_same_size(mirror, tmp_path):
    path = _cached(mirror, tmp_path, "bnc/letter.npz")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ChecksumError, match=r"bnc/letter\.npz"):
        read_bnc(path)


def test_truncated_registered_gz_is_a_checksum_error(mirror, tmp_path):
    path = _cached(mirror, tmp_path, "usps/zip.test.gz")
    train = _cached(mirror, tmp_path, "usps/zip.train.gz")
    _cut(path, 0.3)
    with pytest.raises(ChecksumError, match="payload unreadable"):
        read_usps(train, path)
    labels = _cached(mirror, tmp_path, "mnist/t10k-labels-idx1-ubyte.gz")
    _cut(labels, 0.9)
    with pytest.raises(ChecksumError, match=r"t10k-labels-idx1-ubyte\.gz"):
        read_mnist(
            mirror / "mnist/train-images-idx3-ubyte.gz",
            mirror / "mnist/train-labels-idx1-ubyte.gz",
            mirror / "mnist/t10k-images-idx3-ubyte.gz",
            labels,
        )


def test_truncated_unregistered_gz_names_the_file(tmp_path):
    path = tmp_path / "data.gz"
    path.write_bytes(gzip.compress(b"x" * 10_000)[:40])
    with pytest.raises(ValueError, match=r"data\.gz: not a readable gzip file"):
        read_raw_payload(path)


def test_network_file_cut_after_fetch_is_an_error(mirror, tmp_path):
    path = _cached(mirror, tmp_path, "bif/alarm.bif.gz")
    assert len(load_network(path).nodes) == 37
    _cut(path, 0.6)
    with pytest.raises(ChecksumError, match=r"alarm\.bif\.gz.*701e6c56"):
        load_network(path)
    adapt = _cached(mirror, tmp_path, "adapt/adapt10_v7e.net")
    _cut(adapt, 0.99)
    with pytest.raises(ChecksumError, match=r"adapt10_v7e\.net"):
        load_network(adapt)


def test_restoring_the_good_raw_file_reads_it_again(mirror, tmp_path):
    path = _cached(mirror, tmp_path, "uci/letter/letter-recognition.data")
    good = path.read_bytes()
    stat = path.stat()
    _cut(path)
    dest = tmp_path / "letter.npz"
    with pytest.raises(ChecksumError):
        prepare_dataset("letter", [path], dest)
    assert not dest.exists()  # no derived cache from the bad file
    path.write_bytes(good)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    prepare_dataset("letter", [path], dest)
    assert load_prepared(dest).folds[0].x_train.shape == (16000, 16)


def test_summary_refuses_raw_files_that_do_not_verify(mirror, tmp_path):
    raw_root = tmp_path / "resources" / "raw"
    for relpath in ("senate/s109.rda",):
        _cached(mirror, tmp_path, relpath)
    dest = tmp_path / "senate.npz"
    prepare_dataset("senate", [raw_root / "senate/s109.rda"], dest)
    assert raw_files_verified("senate", raw_root) is True
    frame = summarize_datasets({"senate": dest}, raw_root)
    assert frame["checksums_verified"].tolist() == [True]
    _cut(raw_root / "senate/s109.rda")
    with pytest.raises(ChecksumError, match=r"s109\.rda"):
        summarize_datasets({"senate": dest}, raw_root)
    (raw_root / "senate/s109.rda").unlink()
    with pytest.raises(FileNotFoundError, match=r"s109\.rda"):
        raw_files_verified("senate", raw_root)


# ------------------------------------------------------------------ prepared files
def test_verified_npz_round_trip(tmp_path):
    arrays = {
        "x": np.arange(12, dtype=np.int64).reshape(3, 4),
        "name": np.array("bnc_letter"),
        "labels": np.array(["a", "bb"]),
        "empty": np.zeros((0, 3)),
        "flag": np.array([True, False]),
    }
    digest = save_verified_npz(tmp_path / "a.npz", **arrays)
    back = load_verified_npz(tmp_path / "a.npz")
    assert set(back) == set(arrays)
    for key, value in arrays.items():
        np.testing.assert_array_equal(back[key], value)
    assert digest == npz_content_sha256((tmp_path / "a.npz").read_bytes())
    assert str(np.load(tmp_path / "a.npz")[CONTENT_HASH_KEY]) == digest
    with pytest.raises(ValueError, match="reserved"):
        save_verified_npz(tmp_path / "b.npz", **{CONTENT_HASH_KEY: np.zeros(1)})


def test_content_hash_sees_dtype_shape_and_names():
    base = {"x": np.arange(6, dtype=np.int64)}
    digest = arrays_sha256(base)
    assert arrays_sha256({"x": np.arange(6, dtype=np.int32)}) != digest
    assert arrays_sha256({"x": np.arange(6, dtype=np.int64).reshape(2, 3)}) != digest
    assert arrays_sha256({"y": np.arange(6, dtype=np.int64)}) != digest
    assert arrays_sha256({"x": np.arange(6, dtype=np.int64)[::-1].copy()[::-1]}) == digest


def test_damaged_npz_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "senate.npz"
    save_verified_npz(path, votes=np.ones((4, 3), dtype=np.int8))
    _cut(path, 0.5)
    with pytest.raises(ChecksumError, match=r"senate\.npz: not a readable \.npz file"):
        load_verified_npz(path)


def test_senate_with_changed_votes_is_an_error(mirror, tmp_path):
    dest = tmp_path / "senate.npz"
    prepare_dataset("senate", [mirror / "senate/s109.rda"], dest)
    assert load_senate(dest).votes[1].shape[1] == 99
    with np.load(dest) as npz:
        arrays = {key: npz[key] for key in npz.files}
    arrays["votes_1"] = -arrays["votes_1"]
    np.savez_compressed(dest, **arrays)
    with pytest.raises(ChecksumError, match=r"senate\.npz: content changed"):
        load_senate(dest)
