"""The EM study's hidden sets on pigs and ADAPT: the largest groups of nodes with identical CPTs."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.inference import JunctionTree
from bnstudy.networks import forward_sample, load_network
from bnstudy.parameters.sharing import identical_cpt_sets, largest_sharable_set

NETWORKS = {"pigs": "bif/pigs.bif.gz", "adapt": "adapt/adapt10_v7e.net"}


@pytest.fixture(scope="module")
def networks(mirror):
    return {name: load_network(mirror / path) for name, path in NETWORKS.items()}


def test_largest_identical_cpt_sets(mirror):
    pigs = load_network(mirror / NETWORKS["pigs"])
    sizes = [len(g) for g in identical_cpt_sets(pigs) if len(g) > 1]
    # Every pigs node shares its CPT: 296 two-parent nodes (Mendelian inheritance, |P| in Reed &
    # Mengshoel's Table 2) and 145 founders (the paper's n_H = 145).
    assert sizes == [296, 145]
    assert all(not pigs.parents[v] for v in [g for g in identical_cpt_sets(pigs) if len(g) > 1][1])
    adapt = load_network(mirror / NETWORKS["adapt"])
    assert len(largest_sharable_set(adapt)) == 99


@pytest.mark.parametrize(
    ("name", "group"),
    [("pigs", 0), ("pigs", 1), ("adapt", 0)],
    ids=["pigs-largest", "pigs-founders", "adapt-largest"],
)
def test_e_step_on_identical_cpt_sets(networks, name, group):
    network = networks[name]
    hidden = [g for g in identical_cpt_sets(network) if len(g) > 1][group]
    jt = JunctionTree(network, hidden)
    assert len(jt.hidden_) == len(hidden) and jt.treewidth_ >= 1
    x = forward_sample(network, 50, rng=np.random.default_rng(5))
    ev = x[:, [network.index(v) for v in jt.observed_]]
    counts, ll = jt.expected_counts(ev)
    assert set(counts) == set(network.nodes)
    for v, c in counts.items():
        assert c.shape == network.cpts[v].shape and np.all(np.isfinite(c)) and np.all(c >= 0)
        np.testing.assert_allclose(c.sum(), 50.0, rtol=1e-10, err_msg=v)
    assert ll.shape == (50,) and np.all(np.isfinite(ll)) and np.all(ll <= 0)
    # Hidden nodes are summed out, so each sample is at least as likely as its complete row.
    complete = JunctionTree(network, []).log_likelihood(x)
    assert np.all(ll >= complete - 1e-9)
    # The same counts with the evidence split in two halves.
    c1, _ = jt.expected_counts(ev[:25])
    c2, _ = jt.expected_counts(ev[25:])
    for v in counts:
        np.testing.assert_allclose(c1[v] + c2[v], counts[v], rtol=0, atol=1e-9)
