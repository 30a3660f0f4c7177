"""mini-ADAPT rebuilt from ADAPT: size, structure, the summed-out battery voltage, sharable SB."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from bnstudy.networks import DiscreteBayesianNetwork, load_network
from bnstudy.parameters import identical_cpt_sets, validate_sharing
from bnstudy.studies.em.mini_adapt import (
    MINI_ADAPT_ROLES,
    MINI_ADAPT_SUFFIXES,
    ancestral_marginal,
    build_mini_adapt,
    hidden_nodes,
    observables,
    role_nodes,
    shared_node_set,
)


@pytest.fixture(scope="module")
def adapt(mirror: Path) -> DiscreteBayesianNetwork:
    return load_network(mirror / "adapt" / "adapt10_v7e.net")


@pytest.fixture(scope="module")
def mini(adapt: DiscreteBayesianNetwork) -> DiscreteBayesianNetwork:
    return build_mini_adapt(adapt)


@pytest.fixture(scope="module")
def adapt_ve(adapt):
    """pgmpy's VariableElimination on the whole of ADAPT: an independent exact engine."""
    from pgmpy.inference import VariableElimination

    return VariableElimination(adapt.to_pgmpy())


def test_size_matches_reed_mengshoel_table_2(mini):
    """Table 2: mini-ADAPT has 18 nodes, 15 arcs and 108 CPT parameters."""
    s = mini.summary()
    assert (s["nodes"], s["arcs"], s["cpt_parameters"]) == (18, 15, 108)
    assert sorted(mini.nodes) == sorted(
        t.format(s=x) for t in MINI_ADAPT_ROLES.values() for x in MINI_ADAPT_SUFFIXES
    )


@pytest.mark.parametrize("suffix", MINI_ADAPT_SUFFIXES)
def test_fragment_structure_is_adapts(mini, adapt, suffix):
    """Per fragment: HB -> SB <- CB, SB -> VB, SB -> S <- HS; states as in ADAPT."""
    n = {r: t.format(s=suffix) for r, t in MINI_ADAPT_ROLES.items()}
    assert mini.parents[n["SB"]] == [n["HB"], n["CB"]]
    assert mini.parents[n["VB"]] == [n["SB"]]
    assert mini.parents[n["S"]] == [n["HS"], n["SB"]]
    assert mini.parents[n["CB"]] == mini.parents[n["HB"]] == mini.parents[n["HS"]] == []
    for v in n.values():
        assert mini.state_names[v] == adapt.state_names[v]
        if v != n["VB"]:
            np.testing.assert_array_equal(mini.cpts[v], adapt.cpts[v])
    # the only arc from outside the fragment in ADAPT is the battery voltage into VB
    assert adapt.parents[n["VB"]] == [n["SB"], f"Voltage_battery{suffix[0]}"]


@pytest.mark.parametrize("suffix", MINI_ADAPT_SUFFIXES)
def test_vb_is_adapts_conditional_given_sb(mini, adapt_ve, suffix):
    """P(VB | SB) in mini-ADAPT equals ADAPT's, computed by pgmpy's variable elimination."""
    vb, sb = f"Voltage_breaker_ey{suffix}_op", f"Closed_breaker_ey{suffix}_op"
    q = adapt_ve.query([sb, vb], joint=True, show_progress=False)
    joint = q.values if q.variables == [sb, vb] else q.values.T
    np.testing.assert_allclose(mini.cpts[vb], joint / joint.sum(axis=1, keepdims=True), atol=1e-12)


def test_battery_marginal_against_pgmpy(adapt, adapt_ve):
    for k in "123":
        v = f"Voltage_battery{k}"
        ours = ancestral_marginal(adapt, [v])
        np.testing.assert_allclose(
            ours, adapt_ve.query([v], show_progress=False).values, atol=1e-12
        )
    two = ancestral_marginal(adapt, ["Closed_battery1", "Voltage_battery1"])
    ref = adapt_ve.query(["Closed_battery1", "Voltage_battery1"], joint=True, show_progress=False)
    ref_t = ref.values if ref.variables == ["Closed_battery1", "Voltage_battery1"] else ref.values.T
    np.testing.assert_allclose(two, ref_t, atol=1e-12)


def test_mini_adapt_is_adapts_marginal_on_a_fragment(mini, adapt_ve):
    """The joint of one fragment (here SB, VB, S, HS) agrees with ADAPT's exact marginal."""
    nodes = [role_nodes(r)[1] for r in ("SB", "VB", "S", "HS")]
    q = adapt_ve.query(nodes, joint=True, show_progress=False)
    ref = np.transpose(q.values, [q.variables.index(v) for v in nodes])
    from pgmpy.inference import VariableElimination

    mini_ve = VariableElimination(mini.to_pgmpy())
    q2 = mini_ve.query(nodes, joint=True, show_progress=False)
    ours = np.transpose(q2.values, [q2.variables.index(v) for v in nodes])
    np.testing.assert_allclose(ours, ref, atol=1e-12)


def test_sb_cpts_identical_so_sb_can_be_shared(mini):
    sb = shared_node_set()
    assert sb == [f"Closed_breaker_ey{s}_op" for s in MINI_ADAPT_SUFFIXES]
    for a, b in itertools.combinations(sb, 2):
        np.testing.assert_array_equal(mini.cpts[a], mini.cpts[b])
    assert any(set(sb) <= set(group) for group in identical_cpt_sets(mini))
    assert validate_sharing(mini, [sb])[0] == sb


def test_observable_sets():
    assert len(observables("O_C")) == 18 and hidden_nodes("O_C") == []
    assert set(observables("O_P")) == set(role_nodes("CB") + role_nodes("S"))
    assert set(hidden_nodes("O_P")) == set(
        role_nodes("HB") + role_nodes("HS") + role_nodes("VB") + role_nodes("SB")
    )
    assert len(hidden_nodes("O_P")) == 12  # n_H = 4 per fragment
    assert set(hidden_nodes("O_T")) == set(role_nodes("VB") + role_nodes("SB"))  # n_H = 2
    assert set(shared_node_set()) <= set(hidden_nodes("O_T"))
    with pytest.raises(ValueError, match="unknown observable set"):
        observables("O_X")
    with pytest.raises(ValueError, match="unknown mini-ADAPT role"):
        role_nodes("XX")


def test_missing_fragment_node_raises(mini):
    with pytest.raises(ValueError, match="lacks the mini-ADAPT nodes"):
        build_mini_adapt(
            DiscreteBayesianNetwork(["A"], {}, {"A": np.array([1.0])}, {"A": ["a"]}, name="tiny")
        )
