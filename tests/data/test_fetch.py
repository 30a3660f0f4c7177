"""Verified fetch: mirror, bundled pgmpy copy, downloads, and the errors when they fail."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib

import pytest

from bnstudy.data import fetch, registry
from bnstudy.data.fetch import (
    MIRROR_ENV,
    ChecksumError,
    DataUnavailableError,
    fetch_raw_file,
    payload_sha256,
    resolve_mirror,
    verify_file,
)

UNREACHABLE = "http://127.0.0.1:9/x"


@pytest.fixture(autouse=True)
def _no_env_mirror(monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)


def _leftovers(directory):
    return sorted(p.name for p in directory.iterdir())


def test_fetch_from_mirror(mirror, tmp_path):
    dest = tmp_path / "out" / "sat.trn"
    source = fetch_raw_file("uci/satimage/sat.trn", dest, mirror=mirror, download=False)
    assert source == f"mirror:{mirror / 'uci/satimage/sat.trn'}"
    assert dest.read_bytes() == (mirror / "uci/satimage/sat.trn").read_bytes()
    assert _leftovers(dest.parent) == ["sat.trn"]


def test_fetch_gz_keeps_raw_bytes(mirror, tmp_path):
    path = "mnist/t10k-labels-idx1-ubyte.gz"
    dest = tmp_path / "labels.gz"
    fetch_raw_file(path, dest, mirror=mirror, download=False)
    assert dest.read_bytes() == (mirror / path).read_bytes()
    assert payload_sha256(dest) == registry.raw_file(path).sha256_content
    verify_file(dest, registry.raw_file(path))


def test_payload_sha256(tmp_path):
    plain = tmp_path / "a.txt"
    plain.write_bytes(b"hello")
    packed = tmp_path / "a.txt.gz"
    packed.write_bytes(gzip.compress(b"hello"))
    expected = hashlib.sha256(b"hello").hexdigest()
    assert payload_sha256(plain) == payload_sha256(packed) == expected


def test_corrupt_mirror_raises_checksum_error(tmp_path):
    fake = tmp_path / "fake_mirror"
    (fake / "uci/satimage").mkdir(parents=True)
    (fake / "uci/satimage/sat.trn").write_bytes(b"1 2 3\n")
    out = tmp_path / "out"
    dest = out / "sat.trn"
    with pytest.raises(ChecksumError) as info:
        fetch_raw_file("uci/satimage/sat.trn", dest, mirror=fake)
    message = str(info.value)
    assert "uci/satimage/sat.trn" in message
    assert str(fake / "uci/satimage/sat.trn") in message
    assert registry.raw_file("uci/satimage/sat.trn").sha256_content in message
    assert hashlib.sha256(b"1 2 3\n").hexdigest() in message
    assert not dest.exists()
    assert _leftovers(out) == []


def test_corrupt_gzip_raises_checksum_error(tmp_path):
    fake = tmp_path / "fake_mirror"
    (fake / "usps").mkdir(parents=True)
    (fake / "usps/zip.test.gz").write_bytes(b"not gzip at all")
    with pytest.raises(ChecksumError, match="zip.test.gz"):
        fetch_raw_file("usps/zip.test.gz", tmp_path / "out/zip.test.gz", mirror=fake)
    assert _leftovers(tmp_path / "out") == []


def test_verify_file_mismatch(mirror):
    raw = registry.raw_file("uci/satimage/sat.tst")
    with pytest.raises(ChecksumError, match="expected sha256"):
        verify_file(mirror / "uci/satimage/sat.trn", raw)


def test_missing_without_download(tmp_path):
    empty = tmp_path / "empty_mirror"
    empty.mkdir()
    dest = tmp_path / "out" / "letter.data"
    with pytest.raises(DataUnavailableError) as info:
        fetch_raw_file("uci/letter/letter-recognition.data", dest, mirror=empty, download=False)
    message = str(info.value)
    assert "uci/letter/letter-recognition.data" in message
    assert str(empty / "uci/letter/letter-recognition.data") in message
    assert not dest.exists()
    assert _leftovers(dest.parent) == []


def test_missing_with_unreachable_url(tmp_path, monkeypatch):
    path = "senate/s109.rda"
    raw = registry.raw_file(path)
    monkeypatch.setitem(registry.RAW_FILES, path, dataclasses.replace(raw, urls=(UNREACHABLE,)))
    empty = tmp_path / "empty_mirror"
    empty.mkdir()
    dest = tmp_path / "out" / "s109.rda"
    with pytest.raises(DataUnavailableError) as info:
        fetch_raw_file(path, dest, mirror=empty, download=True, timeout=5)
    message = str(info.value)
    assert path in message
    assert str(empty / path) in message
    assert UNREACHABLE in message
    assert not dest.exists()


def test_no_mirror_no_url_says_so(tmp_path):
    with pytest.raises(DataUnavailableError) as info:
        fetch_raw_file("adapt/adapt10_v7e.net", tmp_path / "adapt.net")
    message = str(info.value)
    assert "no mirror set (BNSTUDY_DATA_MIRROR)" in message
    assert "no download URL" in message


def test_bundled_pgmpy_copy_without_mirror(tmp_path):
    dest = tmp_path / "alarm.bif.gz"
    source = fetch_raw_file("bif/alarm.bif.gz", dest, download=False)
    assert source == "pgmpy:utils/example_models/alarm.bif.gz"
    verify_file(dest, registry.raw_file("bif/alarm.bif.gz"))
    assert gzip.decompress(dest.read_bytes()).lstrip().startswith(b"network")


def test_env_var_mirror(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, str(mirror))
    assert resolve_mirror() == mirror.resolve()
    assert resolve_mirror(tmp_path) == tmp_path.resolve()
    source = fetch_raw_file("bnc/letter_mi.npz", tmp_path / "letter_mi.npz", download=False)
    assert source == f"mirror:{mirror.resolve() / 'bnc/letter_mi.npz'}"


def test_resolve_mirror_unset():
    assert resolve_mirror() is None


def test_unknown_raw_file(tmp_path):
    with pytest.raises(ValueError, match="unknown raw file"):
        fetch_raw_file("nope/x.csv", tmp_path / "x.csv")


def test_logs_source(mirror, tmp_path, caplog):
    with caplog.at_level("INFO", logger=fetch.__name__):
        fetch_raw_file("bnc/letter_mi.npz", tmp_path / "mi.npz", mirror=mirror)
    assert "bnc/letter_mi.npz" in caplog.text
