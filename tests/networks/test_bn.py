"""DiscreteBayesianNetwork: validation, structure queries, pgmpy and networkx interop."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.networks import DiscreteBayesianNetwork, read_bif


def _small() -> DiscreteBayesianNetwork:
    """A -> C <- B, C -> D <- E, given in a non-topological order."""
    two = ["0", "1"]
    return DiscreteBayesianNetwork(
        nodes=["D", "C", "A", "B", "E"],
        parents={"C": ["A", "B"], "D": ["C", "E"]},
        cpts={
            "A": np.array([0.4, 0.6]),
            "B": np.array([0.5, 0.3, 0.2]),
            "E": np.array([0.9, 0.1]),
            "C": np.array(
                [[[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]], [[0.4, 0.6], [0.5, 0.5], [0.6, 0.4]]]
            ),
            "D": np.array([[[1.0, 0.0], [0.5, 0.5]], [[0.0, 1.0], [0.25, 0.75]]]),
        },
        state_names={"A": two, "B": ["x", "y", "z"], "C": two, "D": two, "E": two},
        name="small",
    )


@pytest.fixture(scope="module")
def alarm(mirror):
    return read_bif(mirror / "bif" / "alarm.bif.gz")


def test_topological_order_is_deterministic_and_valid():
    bn = _small()
    pos = {v: i for i, v in enumerate(bn.nodes)}
    assert all(pos[p] < pos[v] for p, v in bn.edges)
    # ties are broken by the given order: A (given 3rd) before B (4th) before E (5th)
    assert bn.nodes == ["A", "B", "C", "E", "D"]
    assert [bn.index(v) for v in bn.nodes] == list(range(5))


def test_structure_queries():
    bn = _small()
    assert bn.cardinality == {"A": 2, "B": 3, "C": 2, "E": 2, "D": 2}
    assert bn.edges == [("A", "C"), ("B", "C"), ("C", "D"), ("E", "D")]
    assert bn.children("C") == ["D"]
    assert bn.children("D") == []
    assert bn.markov_blanket("C") == {"A", "B", "D", "E"}
    assert bn.markov_blanket("A") == {"C", "B"}  # child C and its other parent B
    assert bn.markov_blanket("E") == {"D", "C"}
    assert bn.markov_blanket("D") == {"C", "E"}
    with pytest.raises(ValueError, match="unknown node 'Z'"):
        bn.markov_blanket("Z")


def test_parameter_counts_and_summary():
    bn = _small()
    assert bn.n_cpt_parameters == 2 + 3 + 2 + 12 + 8
    assert bn.n_free_parameters == 1 + 2 + 1 + 6 + 4
    s = bn.summary()
    assert s == {
        "name": "small",
        "nodes": 5,
        "arcs": 4,
        "cpt_parameters": 27,
        "free_parameters": 14,
        "max_in_degree": 2,
        "avg_degree": 2 * 4 / 5,
        "avg_markov_blanket": (2 + 2 + 4 + 2 + 2) / 5,
    }


def test_cycle_is_rejected_with_its_nodes():
    two = ["a", "b"]
    table = np.array([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(
        ValueError, match=r"cycle: .*X.*Y.*Z|cycle: .*Y.*Z.*X|cycle: .*Z.*X.*Y"
    ) as info:
        DiscreteBayesianNetwork(
            nodes=["W", "X", "Y", "Z"],
            parents={"X": ["Z"], "Y": ["X"], "Z": ["Y"], "W": []},
            cpts={"W": np.array([0.5, 0.5]), "X": table, "Y": table, "Z": table},
            state_names={v: two for v in "WXYZ"},
        )
    assert "W" not in str(info.value)
    with pytest.raises(ValueError, match="self-loop"):
        DiscreteBayesianNetwork(["X"], {"X": ["X"]}, {"X": table}, {"X": two})


def test_non_normalised_cpt_names_the_node():
    bn = _small()
    cpts = dict(bn.cpts)
    cpts["C"] = cpts["C"].copy()
    cpts["C"][1, 2] = [0.6, 0.5]
    with pytest.raises(ValueError, match=r"CPT of node 'C' is not normalised.*\(1, 2\).*1\.1"):
        DiscreteBayesianNetwork(bn.nodes, bn.parents, cpts, bn.state_names)
    cpts["C"][1, 2] = [1.2, -0.2]
    with pytest.raises(ValueError, match="CPT of node 'C' has negative entries"):
        DiscreteBayesianNetwork(bn.nodes, bn.parents, cpts, bn.state_names)


def test_bad_shapes_and_names_are_rejected():
    bn = _small()
    cpts = dict(bn.cpts)
    cpts["C"] = np.moveaxis(cpts["C"], 0, 1)  # parents swapped
    with pytest.raises(
        ValueError, match=r"CPT of node 'C' has shape \(3, 2, 2\), expected \(2, 3, 2\)"
    ):
        DiscreteBayesianNetwork(bn.nodes, bn.parents, cpts, bn.state_names)
    with pytest.raises(ValueError, match="unknown parents"):
        DiscreteBayesianNetwork(["A"], {"A": ["Q"]}, {"A": np.ones((2, 1))}, {"A": ["s"]})
    with pytest.raises(ValueError, match="duplicate state names"):
        DiscreteBayesianNetwork(["A"], {}, {"A": np.array([0.5, 0.5])}, {"A": ["s", "s"]})
    with pytest.raises(ValueError, match="no CPT for node 'A'"):
        DiscreteBayesianNetwork(["A"], {}, {}, {"A": ["s"]})


def test_alarm_layout_matches_the_bif_rows(alarm):
    # probability ( LVEDVOLUME | HYPOVOLEMIA, LVFAILURE ) { (TRUE, FALSE) 0.01, 0.09, 0.90; ... }
    assert alarm.parents["LVEDVOLUME"] == ["HYPOVOLEMIA", "LVFAILURE"]
    np.testing.assert_array_equal(alarm.cpts["LVEDVOLUME"][0, 1], [0.01, 0.09, 0.90])
    np.testing.assert_array_equal(alarm.cpts["LVEDVOLUME"][1, 0], [0.98, 0.01, 0.01])


def test_pgmpy_round_trip_on_alarm(alarm):
    model = alarm.to_pgmpy()
    assert model.check_model()
    assert set(model.nodes()) == set(alarm.nodes)
    assert {tuple(e) for e in model.edges()} == set(alarm.edges)
    # pgmpy's layout: (card, prod(parent cards)), evidence in our parent order, first slowest
    cpd = model.get_cpds("LVEDVOLUME")
    assert cpd.variables == ["LVEDVOLUME", "HYPOVOLEMIA", "LVFAILURE"]
    reduced = cpd.reduce([("HYPOVOLEMIA", "TRUE"), ("LVFAILURE", "FALSE")], inplace=False)
    np.testing.assert_array_equal(reduced.values, [0.01, 0.09, 0.90])
    back = DiscreteBayesianNetwork.from_pgmpy(model)
    assert back.name == "alarm"
    assert back.nodes == alarm.nodes
    assert back.parents == alarm.parents
    assert back.state_names == alarm.state_names
    for v in alarm.nodes:
        np.testing.assert_array_equal(back.cpts[v], alarm.cpts[v])
    assert back.allclose(alarm, atol=0.0)


def test_allclose_handles_parent_order():
    bn = _small()
    swapped = DiscreteBayesianNetwork(
        bn.nodes,
        {**bn.parents, "C": ["B", "A"]},
        {**bn.cpts, "C": np.transpose(bn.cpts["C"], (1, 0, 2))},
        bn.state_names,
    )
    assert bn.allclose(swapped) and swapped.allclose(bn)
    other = {**bn.cpts, "E": np.array([0.8, 0.2])}
    assert not bn.allclose(DiscreteBayesianNetwork(bn.nodes, bn.parents, other, bn.state_names))


def test_to_networkx():
    g = _small().to_networkx()
    assert list(g.nodes) == ["A", "B", "C", "E", "D"]
    assert set(g.edges) == {("A", "C"), ("B", "C"), ("C", "D"), ("E", "D")}
    assert g.nodes["B"]["states"] == ["x", "y", "z"]
    assert g.nodes["B"]["cardinality"] == 3
