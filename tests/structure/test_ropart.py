"""ROPART on alarm, partition support / second-order network, and partition statistics."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from bnstudy.networks import forward_sample, load_network
from bnstudy.structure.ropart import (
    partition_statistics,
    partition_support,
    ropart,
    second_order_network,
)
from bnstudy.structure.weights import WEIGHT_FUNCTIONS

logger = logging.getLogger(__name__)

# The paper's text: average community size 10.286 on alarm, 100% of communities of size <= 25.
PAPER_ALARM_MEAN_SIZE = 10.286
PAPER_ALARM_PCT_LE_25 = 100.0


@pytest.fixture(scope="module")
def alarm(mirror):
    bn = load_network(mirror / "bif" / "alarm.bif.gz")
    x = forward_sample(bn, 5000, rng=np.random.default_rng(0))
    idx = {v: i for i, v in enumerate(bn.nodes)}
    true_edges = np.array([(idx[a], idx[b]) for a, b in bn.edges])
    return x, true_edges, len(bn.nodes)


@pytest.fixture(scope="module")
def alarm_result(alarm):
    x, _, _ = alarm
    return ropart(x)


def _covered(communities):
    return sorted({v for c in communities for v in c})


def test_ropart_alarm_covers_all_nodes(alarm, alarm_result):
    _, _, p = alarm
    res = alarm_result
    assert set(res.partitions) == set(WEIGHT_FUNCTIONS)
    assert set(res.thresholds) == set(res.remaining_edges_pct) == set(WEIGHT_FUNCTIONS)
    for m in WEIGHT_FUNCTIONS:
        assert _covered(res.partitions[m]) == list(range(p)), m
        assert 0 < res.remaining_edges_pct[m] < 100
    assert _covered(res.second_order) == list(range(p))
    assert res.second_order_weights.shape == (p, p)
    assert res.second_order_weights.min() >= 0 and res.second_order_weights.max() <= 1
    np.testing.assert_array_equal(res.second_order_weights, res.second_order_weights.T)
    # the standardised functions prune the same edges as their raw versions (affine invariance)
    assert res.remaining_edges_pct["MI"] == res.remaining_edges_pct["MI_sn"]
    assert res.remaining_edges_pct["Pearson"] == res.remaining_edges_pct["Pearson_sn"]


def test_ropart_alarm_community_sizes(alarm, alarm_result):
    """Measured against the paper's text (mean size 10.286, 100% <= 25); sanity asserts only."""
    _, true_edges, p = alarm
    stats = partition_statistics(alarm_result.second_order, true_edges, p)
    logger.info(
        "alarm (5000 samples), second-order partition: %d communities, mean size %.3f "
        "(paper 10.286), %.1f%% of size <= 25 (paper 100%%), avg shortest path %.3f, "
        "diameter %.3f, true-edge coverage %.3f",
        stats["n_communities"],
        stats["mean_size"],
        stats["pct_size_le_limit"],
        stats["avg_shortest_path"],
        stats["diameter"],
        stats["edge_coverage"],
    )
    print(
        f"\nalarm second-order: mean size {stats['mean_size']:.3f} (paper {PAPER_ALARM_MEAN_SIZE}),"
        f" {stats['pct_size_le_limit']:.1f}% <= 25 (paper {PAPER_ALARM_PCT_LE_25})"
    )
    assert 1 <= stats["mean_size"] <= p
    assert 0 <= stats["pct_size_le_limit"] <= 100
    assert stats["node_coverage"] == 1.0
    assert stats["edge_coverage"] > 0.5  # most true edges fall inside a community
    assert 1 <= stats["avg_shortest_path"] <= stats["diameter"]
    for m, comms in alarm_result.partitions.items():
        s = partition_statistics(comms, true_edges, p)
        assert s["max_size"] <= p and s["avg_shortest_path"] >= 1, m


def test_partition_support_and_second_order_paper_example():
    # The paper's example for node 7 (0-based 6): P1 has communities {4, 7} and {7, 8, 9},
    # P2 has {4, 7, 8, 9} (1-based); node 7 co-occurs with 4, 8 and 9 in both partitions.
    p1 = [[3, 6], [6, 7, 8]]
    p2 = [[3, 6, 7, 8]]
    s1 = partition_support(p1, 9)
    assert s1[6].tolist() == [0, 0, 0, 1, 0, 0, 1, 1, 1]
    assert s1[3, 7] == 0  # 4 and 8 share no community in P1
    co = second_order_network([p1, p2], 9)
    assert co[6].tolist() == [0, 0, 0, 1, 0, 0, 0, 1, 1]
    assert co[3, 7] == 0.5
    np.testing.assert_array_equal(co, co.T)


def test_partition_statistics_by_hand():
    # path 0-1-2-3-4; communities {0,1,2} (distances 1,2,1) and {2,4} (distance 2) and {3}
    s = partition_statistics([[0, 1, 2], [2, 4], [3]], [(0, 1), (1, 2), (2, 3), (3, 4)], 5)
    assert s["n_communities"] == 3
    assert s["mean_size"] == pytest.approx(2.0)
    assert s["avg_shortest_path"] == pytest.approx((4 / 3 + 2) / 2)
    assert s["diameter"] == pytest.approx(2.0)
    assert s["diameter_max"] == 2.0
    assert s["pct_size_le_limit"] == 100.0
    assert s["edge_coverage"] == pytest.approx(0.5)  # (0,1), (1,2) covered; (2,3), (3,4) not
    assert s["node_coverage"] == 1.0
    assert s["overlap"] == pytest.approx(6 / 5)
    big = partition_statistics([list(range(30)), [0, 1]], [(k, k + 1) for k in range(29)], 30)
    assert big["pct_size_le_limit"] == 50.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"second_order_threshold": 1.0}, "second_order_threshold 1.0 is out of range"),
        ({"second_order_threshold": -0.1}, "out of range"),
        ({"methods": ["MI", "entropy"]}, "unknown weight function 'entropy'"),
        ({"methods": []}, "methods is empty"),
        ({"bins": 1}, "bins must be an integer >= 2"),
    ],
)
def test_ropart_bad_arguments(kwargs, match):
    x = np.random.default_rng(0).integers(0, 2, (50, 4))
    with pytest.raises(ValueError, match=match):
        ropart(x, **kwargs)


def test_ropart_bad_data():
    with pytest.raises(ValueError, match="non-integer"):
        ropart(np.array([[0, 1.5, 0], [1, 0, 1]]))
