"""bnstudy.utils: atomic output, seeds and provenance."""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest

from bnstudy import __version__
from bnstudy.utils import atomic_path, derive_seed, make_rng, provenance, save_npz, sha256_of


def test_atomic_path_replaces_the_destination_on_success(tmp_path):
    dest = tmp_path / "new" / "out.txt"
    with atomic_path(dest) as tmp:
        assert tmp.parent == dest.parent and tmp != dest
        tmp.write_text("done")
        assert not dest.exists()
    assert dest.read_text() == "done"
    assert [p.name for p in dest.parent.iterdir()] == ["out.txt"]


def test_atomic_path_keeps_the_old_file_and_no_temporary_on_failure(tmp_path):
    dest = tmp_path / "out.txt"
    dest.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(dest) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert dest.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_save_npz_roundtrip(tmp_path):
    dest = tmp_path / "a.npz"
    save_npz(dest, x=np.arange(3), y=np.eye(2))
    with np.load(dest) as data:
        np.testing.assert_array_equal(data["x"], np.arange(3))
        np.testing.assert_array_equal(data["y"], np.eye(2))


def test_sha256_of_known_value():
    assert sha256_of(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_derive_seed_depends_on_values_only():
    s = derive_seed(7, "alarm", 3)
    assert s == derive_seed(7, "alarm", 3)
    assert 0 <= s < 2**63
    assert (
        len({s, derive_seed(7, "alarm", 4), derive_seed(8, "alarm", 3), derive_seed(7, "pigs", 3)})
        == 4
    )
    assert derive_seed(7, "a", "b") != derive_seed(7, "ab")  # keys are separated
    assert derive_seed(7.0, 3) == derive_seed(7, 3)  # the base seed is taken as an integer


def test_make_rng_is_reproducible():
    np.testing.assert_array_equal(make_rng(1, "x").random(5), make_rng(1, "x").random(5))
    assert not np.array_equal(make_rng(1, "x").random(5), make_rng(1, "y").random(5))


def test_provenance_records_version_commit_and_seed():
    record = provenance(seed=5)
    assert record["bnstudy_version"] == __version__
    assert record["seed"] == 5
    commit = record["git_commit"]
    assert commit == "unknown" or (len(commit) == 40 and int(commit, 16) >= 0)
    assert "seed" not in provenance()


def test_npz_written_by_a_job_records_its_provenance(tmp_path, monkeypatch):
    job = types.SimpleNamespace(params=types.SimpleNamespace(items=lambda: [("code", "abc123")]))
    monkeypatch.setattr(sys.modules["__main__"], "snakemake", job, raising=False)
    save_npz(tmp_path / "r.npz", x=np.arange(3))
    with np.load(tmp_path / "r.npz") as npz:
        record = json.loads(str(npz["provenance"]))
        np.testing.assert_array_equal(npz["x"], np.arange(3))
    assert record["code_hash"] == "abc123" and "numpy" in record["packages"]
    assert "git_commit" in record and "git_dirty" in record


def test_npz_written_outside_a_job_holds_only_its_arrays(tmp_path):
    save_npz(tmp_path / "r.npz", x=np.arange(3))
    with np.load(tmp_path / "r.npz") as npz:
        assert npz.files == ["x"]
