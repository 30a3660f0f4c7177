"""JunctionTree against brute-force enumeration of the full joint, and its E-step contract."""

from __future__ import annotations

import itertools
import logging

import networkx as nx
import numpy as np
import pytest

from bnstudy.inference import JunctionTree, triangulate
from bnstudy.networks import DiscreteBayesianNetwork, forward_sample


# ---------------------------------------------------------------------------- brute force
def random_cpts(bn: DiscreteBayesianNetwork, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Dirichlet(1) rows for every CPT of ``bn`` (the shape of a random EM start)."""
    return {v: rng.dirichlet(np.ones(t.shape[-1]), size=t.shape[:-1]) for v, t in bn.cpts.items()}


def joint(bn: DiscreteBayesianNetwork, cpts: dict[str, np.ndarray]) -> np.ndarray:
    """The full joint over ``bn.nodes`` (one axis per node, in that order)."""
    operands = []
    for v in bn.nodes:
        operands += [cpts[v], [bn.index(u) for u in (*bn.parents[v], v)]]
    return np.einsum(*operands, list(range(len(bn.nodes))))


def brute_force(bn, hidden, evidence, cpts):
    """Per row of ``evidence``: ``log P(e)`` and ``P(X, pa(X) | e)`` of every family, by enumeration."""
    cpts = cpts if cpts is not None else bn.cpts
    full = joint(bn, cpts)
    observed = [v for v in bn.nodes if v not in set(hidden)]
    obs_axes = [bn.index(v) for v in observed]
    logp, fams = [], {v: [] for v in bn.nodes}
    for row in evidence:
        mask = np.zeros_like(full, dtype=bool)
        index = [slice(None)] * len(bn.nodes)
        for ax, val in zip(obs_axes, row, strict=True):
            index[ax] = int(val)
        mask[tuple(index)] = True
        post = np.where(mask, full, 0.0)
        pe = post.sum()
        logp.append(np.log(pe))
        post = post / pe
        for v in bn.nodes:
            fam = [bn.index(u) for u in (*bn.parents[v], v)]
            fams[v].append(np.einsum(post, list(range(len(bn.nodes))), fam))
    return np.array(logp), {v: np.array(m) for v, m in fams.items()}


def sample_evidence(bn, jt, n, seed, cpts=None):
    """Forward samples of ``bn`` (under ``cpts`` if given), restricted to the observed columns."""
    src = bn
    if cpts is not None:
        src = DiscreteBayesianNetwork(bn.nodes, bn.parents, cpts, bn.state_names)
    x = forward_sample(src, n, rng=np.random.default_rng(seed))
    return x[:, [bn.index(v) for v in jt.observed_]]


def n_components(bn, hidden) -> int:
    g = nx.Graph()
    g.add_nodes_from(hidden)
    for v in bn.nodes:
        fam = [u for u in (*bn.parents[v], v) if u in set(hidden)]
        g.add_edges_from(itertools.combinations(fam, 2))
    return nx.number_connected_components(g)


ASIA_HIDDEN = [
    ["tub", "lung", "bronc"],  # components {tub, lung} and {bronc}
    ["asia", "smoke"],  # two isolated hidden roots
    ["either"],  # a hidden node whose parents and children are all observed
    ["dysp"],  # a hidden leaf (barren: its posterior is its prior given the parents)
    ["asia", "tub", "smoke", "lung", "bronc", "either", "xray"],  # all but one
    ["asia", "tub", "lung", "either", "dysp"],
]
HANDMADE_HIDDEN = [
    ["A", "C", "D", "E"],  # the loop: triangulation needs a fill edge
    ["A", "E"],  # two components, no edge between them
    ["B", "F"],  # two components
    ["C"],
    ["A", "B", "C", "D", "E"],
    ["B", "C", "D", "E", "F"],
]


@pytest.mark.parametrize("hidden", ASIA_HIDDEN, ids=lambda h: "+".join(h))
def test_asia_matches_enumeration(asia, hidden):
    jt = JunctionTree(asia, hidden)
    assert sum(p < 0 for p in jt.parent_) == n_components(asia, hidden)
    ev = sample_evidence(asia, jt, 40, seed=1)
    ll = jt.log_likelihood(ev)
    want_ll, want = brute_force(asia, hidden, ev, None)
    np.testing.assert_allclose(ll, want_ll, rtol=0, atol=1e-10)
    marg = jt.family_marginals(ev)
    assert set(marg) == {v for v in asia.nodes if {v, *asia.parents[v]} & set(hidden)}
    for v, m in marg.items():
        np.testing.assert_allclose(m, want[v], rtol=0, atol=1e-10, err_msg=v)


@pytest.mark.parametrize("hidden", HANDMADE_HIDDEN, ids=lambda h: "+".join(h))
@pytest.mark.parametrize("params", ["true", "random"])
def test_handmade_matches_enumeration(handmade, hidden, params):
    rng = np.random.default_rng(7)
    cpts = None if params == "true" else random_cpts(handmade, rng)
    jt = JunctionTree(handmade, hidden)
    assert sum(p < 0 for p in jt.parent_) == n_components(handmade, hidden)
    ev = sample_evidence(handmade, jt, 60, seed=2, cpts=cpts)
    counts, ll = jt.expected_counts(ev, cpts)
    want_ll, want = brute_force(handmade, hidden, ev, cpts)
    np.testing.assert_allclose(ll, want_ll, rtol=0, atol=1e-10)
    marg = jt.family_marginals(ev, cpts)
    for v, m in marg.items():
        np.testing.assert_allclose(m, want[v], rtol=0, atol=1e-10, err_msg=v)
    for v in handmade.nodes:  # every family, the fully observed ones too
        np.testing.assert_allclose(counts[v], want[v].sum(axis=0), rtol=0, atol=1e-9, err_msg=v)
    hm = jt.hidden_marginals(ev, cpts)
    for h in jt.hidden_:
        np.testing.assert_allclose(
            hm[h], want[h].reshape(len(ev), -1, want[h].shape[-1]).sum(1), atol=1e-10
        )


def test_cancer_single_row_by_hand(cancer):
    """P(Cancer | Xray=positive, Dyspnoea=True) with Pollution and Smoker observed, by hand."""
    jt = JunctionTree(cancer, ["Cancer"])
    assert jt.observed_ == ["Pollution", "Smoker", "Xray", "Dyspnoea"]
    ev = np.array([[0, 0, 0, 0]])  # low, True, positive, True
    counts, ll = jt.expected_counts(ev)
    joint_ = np.array([0.9 * 0.3 * 0.03 * 0.9 * 0.65, 0.9 * 0.3 * 0.97 * 0.2 * 0.3])
    np.testing.assert_allclose(np.exp(ll), [joint_.sum()], rtol=1e-12)
    np.testing.assert_allclose(counts["Cancer"][0, 0], joint_ / joint_.sum(), rtol=1e-12)
    assert counts["Cancer"][1].sum() == 0 and counts["Cancer"][0, 1].sum() == 0
    np.testing.assert_array_equal(counts["Pollution"], [1.0, 0.0])


@pytest.mark.parametrize(
    "hidden", [["Pollution", "Cancer"], ["Smoker", "Xray"], ["Cancer", "Dyspnoea"]]
)
def test_cancer_matches_enumeration(cancer, hidden):
    jt = JunctionTree(cancer, hidden)
    ev = np.array(list(itertools.product(*[range(cancer.cardinality[v]) for v in jt.observed_])))
    want_ll, want = brute_force(cancer, hidden, ev, None)
    counts, ll = jt.expected_counts(ev)
    np.testing.assert_allclose(ll, want_ll, rtol=0, atol=1e-10)
    for v in cancer.nodes:
        np.testing.assert_allclose(counts[v], want[v].sum(axis=0), rtol=0, atol=1e-10)
    # Summed over every possible evidence row, P(e) is 1.
    np.testing.assert_allclose(np.exp(ll).sum(), 1.0, rtol=1e-12)


# ---------------------------------------------------------------------------- structure
@pytest.mark.parametrize("hidden", HANDMADE_HIDDEN + [["A", "B", "C", "D", "E", "F"][:5]])
def test_junction_tree_properties(handmade, hidden):
    jt = JunctionTree(handmade, hidden)
    cliques = [set(c) for c in jt.cliques_]
    # Every hidden node is covered; every family with a hidden node fits in its clique.
    assert set().union(*cliques) == set(jt.hidden_)
    for v, c in jt.family_clique_.items():
        assert {v, *handmade.parents[v]} & set(hidden) <= cliques[c]
    # Running intersection: the cliques holding a variable form a subtree.
    tree = nx.Graph()
    tree.add_nodes_from(range(len(cliques)))
    tree.add_edges_from((c, p) for c, p in enumerate(jt.parent_) if p >= 0)
    assert nx.is_forest(tree)
    for v in jt.hidden_:
        holders = [i for i, c in enumerate(cliques) if v in c]
        assert nx.is_connected(tree.subgraph(holders)), v
    # Pre-order: parents come first; separators are the intersections.
    for c, p in enumerate(jt.parent_):
        assert p < c
        assert set(jt.separators_[c]) == (cliques[c] & cliques[p] if p >= 0 else set())
    assert jt.treewidth_ == max(len(c) for c in cliques) - 1
    assert jt.max_clique_size_ == max(
        int(np.prod([handmade.cardinality[v] for v in c])) for c in cliques
    )
    assert "treewidth" in repr(jt)


def test_loop_needs_a_fill_edge(handmade):
    jt = JunctionTree(handmade, ["A", "C", "D", "E"])
    # Moral graph on {A, C, D, E}: A-C, A-D, C-E, D-E, C-D (co-parents of E): chordal, two triangles.
    assert sorted(map(set, jt.cliques_), key=sorted) == [{"A", "C", "D"}, {"C", "D", "E"}]
    assert jt.treewidth_ == 2


@pytest.mark.parametrize("heuristic", ["min_fill", "min_weight", "min_degree"])
def test_triangulate_gives_chordal_graph(heuristic):
    rng = np.random.default_rng(3)
    g = nx.gnp_random_graph(14, 0.3, seed=4)
    order = [str(v) for v in g.nodes]
    adj = {str(v): {str(u) for u in g[v]} for v in g.nodes}
    card = {v: int(rng.integers(2, 5)) for v in order}
    elim, cliques = triangulate(adj, card, order, heuristic=heuristic)
    assert sorted(elim) == sorted(order)
    filled = nx.Graph()
    filled.add_nodes_from(order)
    for c in cliques:
        filled.add_edges_from(itertools.combinations(c, 2))
    assert all(filled.has_edge(str(a), str(b)) for a, b in g.edges)
    assert nx.is_chordal(filled)
    maximal = {frozenset(c) for c in nx.find_cliques(filled)}
    assert {frozenset(c) for c in cliques} == maximal


def test_min_fill_on_a_cycle():
    order = ["a", "b", "c", "d", "e"]
    adj = {v: {order[i - 1], order[(i + 1) % 5]} for i, v in enumerate(order)}
    elim, cliques = triangulate(adj, dict.fromkeys(order, 2), order)
    assert len(cliques) == 3 and all(len(c) == 3 for c in cliques)
    assert elim[0] == "a"  # all tie on fill (1) and weight: network order decides


# ---------------------------------------------------------------------------- expected counts
def test_counts_sum_to_weights_and_match_marginals(asia):
    jt = JunctionTree(asia, ["tub", "lung", "bronc", "either"])
    ev = sample_evidence(asia, jt, 300, seed=5)
    rng = np.random.default_rng(0)
    w = rng.uniform(0.1, 2.0, size=len(ev))
    counts, ll = jt.expected_counts(ev, weights=w)
    for v, c in counts.items():
        assert c.shape == asia.cpts[v].shape
        np.testing.assert_allclose(c.sum(), w.sum(), rtol=1e-12, err_msg=v)
    marg = jt.family_marginals(ev)
    for v, m in marg.items():
        np.testing.assert_allclose(counts[v], np.tensordot(w, m, axes=1), rtol=0, atol=1e-10)
    unweighted, ll2 = jt.expected_counts(ev)
    np.testing.assert_array_equal(ll, ll2)
    for c in unweighted.values():
        np.testing.assert_allclose(c.sum(), len(ev), rtol=1e-12)


def test_deduplication_changes_nothing(handmade):
    hidden = ["A", "C", "E"]
    jt = JunctionTree(handmade, hidden)
    ev = sample_evidence(handmade, jt, 500, seed=6)
    assert len(np.unique(ev, axis=0)) < len(ev)  # repeats exist
    counts, ll = jt.expected_counts(ev)
    # Row by row (no repeats within a call), summed afterwards.
    total = {v: np.zeros_like(c) for v, c in counts.items()}
    ll_rows = np.empty(len(ev))
    for i in range(len(ev)):
        c, l1 = jt.expected_counts(ev[i : i + 1])
        ll_rows[i] = l1[0]
        for v in total:
            total[v] += c[v]
    np.testing.assert_allclose(ll, ll_rows, rtol=0, atol=1e-12)
    for v in counts:
        np.testing.assert_allclose(counts[v], total[v], rtol=0, atol=1e-9)


def test_weights_equal_repetition(handmade):
    jt = JunctionTree(handmade, ["B", "D"])
    ev = sample_evidence(handmade, jt, 50, seed=8)
    reps = np.random.default_rng(1).integers(0, 4, size=len(ev))
    c_w, _ = jt.expected_counts(ev, weights=reps.astype(float))
    c_r, _ = jt.expected_counts(np.repeat(ev, reps, axis=0))
    for v in c_w:
        np.testing.assert_allclose(c_w[v], c_r[v], rtol=0, atol=1e-10)


def test_chunking_changes_nothing(handmade):
    hidden = ["A", "C", "D", "E"]
    ev = sample_evidence(handmade, JunctionTree(handmade, hidden), 200, seed=9)
    c1, l1 = JunctionTree(handmade, hidden).expected_counts(ev)
    c2, l2 = JunctionTree(handmade, hidden, max_entries=100).expected_counts(ev)
    np.testing.assert_allclose(l1, l2, rtol=0, atol=1e-12)
    for v in c1:
        np.testing.assert_allclose(c1[v], c2[v], rtol=0, atol=1e-10)


def test_scatter_path_matches_matrix_path(handmade):
    """Families too large for a dense one-hot matrix scatter with add.at: same counts."""
    hidden = ["B", "D"]
    jt = JunctionTree(handmade, hidden)
    ev = sample_evidence(handmade, jt, 300, seed=13)
    c1, _ = jt.expected_counts(ev)
    small = JunctionTree(handmade, hidden, max_onehot=1)
    c2, _ = small.expected_counts(ev)
    assert small._evidence(ev).scattered  # the other path was taken
    for v in c1:
        np.testing.assert_allclose(c1[v], c2[v], rtol=0, atol=1e-10)


def test_no_underflow_with_many_small_factors():
    """40 observed children with likelihoods near 1e-10: the clique product is ~1e-400."""
    k = 40
    children = [f"C{i}" for i in range(k)]
    child_cpt = np.array([[1 - 1e-10, 1e-10], [1 - 2e-10, 2e-10]])
    bn = DiscreteBayesianNetwork(
        nodes=["H", *children],
        parents=dict.fromkeys(children, ["H"]),
        cpts={"H": np.array([0.5, 0.5]), **dict.fromkeys(children, child_cpt)},
        state_names={v: ["0", "1"] for v in ["H", *children]},
    )
    jt = JunctionTree(bn, ["H"])
    ev = np.ones((3, k), dtype=int)
    ev[2, :20] = 0
    counts, ll = jt.expected_counts(ev)
    want0 = np.log(0.5) + k * np.log(1e-10) + np.log1p(2.0**k)
    np.testing.assert_allclose(ll[:2], want0, rtol=1e-12)
    p1 = 2.0**k / (1 + 2.0**k)  # P(H=1 | all ones)
    post = jt.hidden_marginals(ev)["H"]
    np.testing.assert_allclose(post[0], [1 - p1, p1], rtol=1e-12)
    np.testing.assert_allclose(counts["H"].sum(), 3.0, rtol=1e-12)
    assert np.isfinite(ll[2])


def test_no_underflow_when_factors_peak_at_different_states():
    """360 children, half favouring H=0 and half H=1: rescaling each factor to a maximum of one
    is not enough (their product is ~1e-720 in both states): those samples are redone in log
    space, whose sum of 360 logs costs some precision."""
    k = 180
    children = [f"C{i}" for i in range(2 * k)]
    favours_0 = np.array([[1 - 1e-3, 1e-3], [1 - 1e-5, 1e-5]])
    cpts = {c: favours_0 if i < k else favours_0[::-1].copy() for i, c in enumerate(children)}
    bn = DiscreteBayesianNetwork(
        nodes=["H", *children],
        parents=dict.fromkeys(children, ["H"]),
        cpts={"H": np.array([0.5, 0.5]), **cpts},
        state_names={v: ["0", "1"] for v in ["H", *children]},
    )
    jt = JunctionTree(bn, ["H"])
    counts, ll = jt.expected_counts(np.ones((2, 2 * k), dtype=int))
    # both states of H give (1e-3)^k (1e-5)^k, so P(e) = that and P(H | e) = (1/2, 1/2)
    np.testing.assert_allclose(ll, k * np.log(1e-3) + k * np.log(1e-5), rtol=1e-12)
    np.testing.assert_allclose(counts["H"], [1.0, 1.0], rtol=1e-9)


def test_new_cpts_same_evidence(handmade):
    """EM's pattern: one compiled tree, one evidence array, new CPTs every call."""
    hidden = ["A", "C", "E"]
    jt = JunctionTree(handmade, hidden)
    ev = sample_evidence(handmade, jt, 30, seed=10)
    rng = np.random.default_rng(11)
    for _ in range(3):
        cpts = random_cpts(handmade, rng)
        counts, ll = jt.expected_counts(ev, cpts)
        want_ll, want = brute_force(handmade, hidden, ev, cpts)
        np.testing.assert_allclose(ll, want_ll, rtol=0, atol=1e-10)
        np.testing.assert_allclose(counts["E"], want["E"].sum(0), rtol=0, atol=1e-10)


def test_no_hidden_nodes_is_direct_counting(asia):
    jt = JunctionTree(asia, [])
    assert jt.cliques_ == [] and jt.treewidth_ == -1 and jt.max_clique_size_ == 0
    x = forward_sample(asia, 200, rng=np.random.default_rng(12))
    counts, ll = jt.expected_counts(x)
    want_ll, want = brute_force(asia, [], x, None)
    np.testing.assert_allclose(ll, want_ll, atol=1e-12)
    for v in asia.nodes:
        np.testing.assert_allclose(counts[v], want[v].sum(0), atol=1e-12)
    assert jt.family_marginals(x) == {}


def test_impossible_evidence_gets_minus_inf(asia, caplog):
    jt = JunctionTree(asia, ["asia", "smoke"])
    obs = jt.observed_
    row = dict.fromkeys(obs, 1)
    row.update(tub=1, lung=1, either=0)  # either = OR(lung, tub) is violated
    ev = np.array([[row[v] for v in obs], [0] * len(obs)])
    with caplog.at_level(logging.WARNING, logger="bnstudy.inference.junction_tree"):
        counts, ll = jt.expected_counts(ev)
    assert ll[0] == -np.inf and np.isfinite(ll[1])
    assert "probability 0" in caplog.text
    for v, c in counts.items():
        assert np.all(np.isfinite(c))
        np.testing.assert_allclose(c.sum(), 1.0, err_msg=v)


def test_empty_evidence(asia):
    jt = JunctionTree(asia, ["tub"])
    counts, ll = jt.expected_counts(np.zeros((0, len(jt.observed_)), dtype=int))
    assert ll.shape == (0,)
    assert all(c.sum() == 0 and c.shape == asia.cpts[v].shape for v, c in counts.items())


# ---------------------------------------------------------------------------- bad input
def test_unknown_hidden_node(asia):
    with pytest.raises(ValueError, match="'nope'"):
        JunctionTree(asia, ["tub", "nope"])


def test_all_hidden(asia):
    with pytest.raises(ValueError, match="all-hidden data: nothing is observed"):
        JunctionTree(asia, asia.nodes)


def test_unknown_heuristic(asia):
    with pytest.raises(ValueError, match="min_width"):
        JunctionTree(asia, ["tub"], elimination="min_width")


def test_clique_too_large(handmade):
    with pytest.raises(ValueError, match="largest clique has 24 entries"):
        JunctionTree(handmade, ["A", "C", "D", "E"], max_entries=20)


def test_evidence_out_of_range(asia):
    jt = JunctionTree(asia, ["tub"])
    ev = np.zeros((3, len(jt.observed_)), dtype=int)
    ev[2, jt.observed_.index("xray")] = 2
    with pytest.raises(ValueError, match=r"'xray' has value 2"):
        jt.expected_counts(ev)
    ev[2, jt.observed_.index("xray")] = -1
    with pytest.raises(ValueError, match=r"'xray' has value -1"):
        jt.family_marginals(ev)


def test_evidence_wrong_columns(asia):
    jt = JunctionTree(asia, ["tub"])
    with pytest.raises(ValueError, match=r"shape \(n, 7\)"):
        jt.expected_counts(np.zeros((3, 8), dtype=int))
    with pytest.raises(ValueError, match=r"shape \(n, 7\)"):
        jt.expected_counts(np.zeros(7, dtype=int))


def test_evidence_not_integer(asia):
    jt = JunctionTree(asia, ["tub"])
    with pytest.raises(ValueError, match="integer"):
        jt.expected_counts(np.full((2, 7), 0.5))
    ev = np.zeros((2, 7))
    ev[1, 3] = np.nan
    with pytest.raises(ValueError, match="'bronc' has value nan"):
        jt.expected_counts(ev)
    # Integral floats are accepted.
    np.testing.assert_array_equal(
        jt.log_likelihood(np.zeros((2, 7))), jt.log_likelihood(np.zeros((2, 7), dtype=int))
    )


def test_bad_cpts_and_weights(asia):
    jt = JunctionTree(asia, ["tub"])
    ev = np.zeros((2, 7), dtype=int)
    cpts = dict(asia.cpts)
    del cpts["dysp"]
    with pytest.raises(ValueError, match="'dysp'"):
        jt.expected_counts(ev, cpts)
    cpts["dysp"] = np.ones((2, 2))
    with pytest.raises(ValueError, match="'dysp' has shape"):
        jt.expected_counts(ev, cpts)
    # an entry that is no probability is named, not taken for "probability 0" or a count < 0
    for bad in (np.nan, -0.25, np.inf):
        cpts["dysp"] = asia.cpts["dysp"].copy()
        cpts["dysp"].flat[3] = bad
        for method in (jt.expected_counts, jt.log_likelihood):
            with pytest.raises(ValueError, match=rf"'dysp' has the entry {bad}: .* >= 0"):
                method(ev, cpts)
    with pytest.raises(ValueError, match="weights"):
        jt.expected_counts(ev, weights=np.ones(3))
