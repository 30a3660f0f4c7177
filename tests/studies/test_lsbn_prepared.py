"""LSBN's stored phases: written, read back, and the same structure as computing them in the run."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.data.integrity import ChecksumError, save_verified_npz
from bnstudy.networks import forward_sample, load_network
from bnstudy.structure.lsbn import SETTINGS as LSBN_SETTINGS
from bnstudy.structure.lsbn import lsbn, prepare
from bnstudy.studies.lsbn.prepared import PREPARE_SETTINGS, load_prepared, save_prepared

SETTINGS = {"max_size": 10, "mb_alpha": 0.01}


@pytest.fixture(scope="module")
def data(mirror):
    alarm = load_network(mirror / "bif" / "alarm.bif.gz")
    x = forward_sample(alarm, 3000, rng=np.random.default_rng(5))
    # a constant column: the phases then cover the other columns only
    return np.column_stack([x[:, :10], np.zeros(len(x), dtype=x.dtype), x[:, 10:]])


def test_round_trip_keeps_every_field(tmp_path, data):
    prepared = prepare(data, **SETTINGS)
    save_prepared(tmp_path / "p.npz", prepared)
    back = load_prepared(tmp_path / "p.npz")
    np.testing.assert_array_equal(back.columns, prepared.columns)
    assert 10 not in back.columns.tolist()
    np.testing.assert_array_equal(back.blankets, prepared.blankets)
    assert back.timings == prepared.timings
    a, b = prepared.ropart, back.ropart
    assert b.partitions == a.partitions and b.second_order == a.second_order
    assert b.thresholds == a.thresholds and b.remaining_edges_pct == a.remaining_edges_pct
    assert b.second_order_threshold == a.second_order_threshold
    assert b.second_order_remaining_edges_pct == a.second_order_remaining_edges_pct
    np.testing.assert_array_equal(b.second_order_weights, a.second_order_weights)
    assert list(b.weights) == list(a.weights)
    for k in a.weights:
        np.testing.assert_array_equal(b.weights[k], a.weights[k])


@pytest.mark.parametrize("learner", ["aracne", "hill_climb"])
def test_stored_phases_learn_the_same_structure(tmp_path, data, learner):
    save_prepared(tmp_path / "p.npz", prepare(data, **SETTINGS))
    stored = load_prepared(tmp_path / "p.npz")
    fresh = lsbn(data, local_learner=learner, rng=np.random.default_rng(3), **SETTINGS)
    reused = lsbn(
        data, local_learner=learner, rng=np.random.default_rng(3), prepared=stored, **SETTINGS
    )
    np.testing.assert_array_equal(reused.adjacency, fresh.adjacency)
    assert reused.subcommunities == fresh.subcommunities
    assert (reused.n_conflicts, reused.n_local_calls) == (fresh.n_conflicts, fresh.n_local_calls)
    # the stored phases' seconds count in the run's total, as if computed in it
    assert reused.timings["ropart"] == stored.timings["ropart"]
    assert reused.timings["total"] >= sum(stored.timings.values())


def test_prepare_settings_are_the_ones_prepare_reads(data):
    """A setting outside PREPARE_SETTINGS changes nothing prepare computes."""
    base = prepare(data[:1000], **SETTINGS)
    other = prepare(data[:1000], **{**SETTINGS, "max_size": 4, "tau": 0.5, "alpha_pc": 0.2})
    assert other.ropart.second_order == base.ropart.second_order
    np.testing.assert_array_equal(other.blankets, base.blankets)
    moved = prepare(data[:1000], **{**SETTINGS, "mb_alpha": 0.2})
    assert not np.array_equal(moved.blankets, base.blankets)
    assert set(PREPARE_SETTINGS) <= set(LSBN_SETTINGS)


def test_bad_files_are_named(tmp_path):
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ChecksumError, match="junk.npz"):
        load_prepared(tmp_path / "junk.npz")
    save_verified_npz(tmp_path / "other.npz", samples=np.zeros(3))
    with pytest.raises(ValueError, match=r"other.npz: no array 'weight_functions'"):
        load_prepared(tmp_path / "other.npz")
