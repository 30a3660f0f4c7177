"""Groups of nodes with identical CPTs."""

from __future__ import annotations

import numpy as np

from bnstudy.inference import identical_cpt_groups, largest_identical_cpt_set
from bnstudy.networks import DiscreteBayesianNetwork


def _net(cpts, parents, card):
    nodes = list(cpts)
    return DiscreteBayesianNetwork(
        nodes, parents, cpts, {v: [str(k) for k in range(card[v])] for v in nodes}
    )


def test_groups_by_values_and_cardinalities():
    p = np.array([0.2, 0.8])
    q = np.array([[0.1, 0.9], [0.6, 0.4]])
    bn = _net(
        {
            "A": p,
            "B": p + np.array([1e-14, -1e-14]),  # equal after rounding to 1e-12
            "C": np.array([0.3, 0.7]),
            "D": q,
            "E": q.copy(),
            "F": p,
            "G": np.array([0.2, 0.8, 0.0]),  # three states: never grouped with the two-state roots
        },
        {"D": ["A"], "E": ["C"]},
        {"A": 2, "B": 2, "C": 2, "D": 2, "E": 2, "F": 2, "G": 3},
    )
    assert identical_cpt_groups(bn) == [["A", "B", "F"], ["D", "E"]]
    assert largest_identical_cpt_set(bn) == ["A", "B", "F"]
    assert identical_cpt_groups(bn, decimals=15)[0] == ["A", "F"]
    assert len(identical_cpt_groups(bn, min_size=1)) == 4


def test_no_shared_cpts():
    bn = _net({"A": np.array([0.2, 0.8]), "B": np.array([0.3, 0.7])}, {}, {"A": 2, "B": 2})
    assert identical_cpt_groups(bn) == [] and largest_identical_cpt_set(bn) == []
