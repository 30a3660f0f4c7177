"""EM with parameter sharing: invariants, a brute-force reference, recovery and input checks."""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from bnstudy.inference.junction_tree import JunctionTree
from bnstudy.networks import DiscreteBayesianNetwork, forward_sample
from bnstudy.parameters import (
    ExpectationMaximization,
    complete_data_counts,
    cpts_from_counts,
)
from bnstudy.studies.em.mini_adapt import hidden_nodes, shared_node_set


class BruteForceEStep:
    """Reference E-step: enumerate the joint distribution of a small network.

    Same interface as :class:`~bnstudy.inference.junction_tree.JunctionTree`; exponential in the
    number of nodes, so for a handful of nodes only. Independent of the junction tree: the joint is
    one einsum of all CPTs, each sample's posterior is the joint times one-hot evidence.
    """

    def __init__(self, bn: DiscreteBayesianNetwork, hidden: Sequence[str]) -> None:
        self.bn = bn
        self.hidden_ = [v for v in bn.nodes if v in set(hidden)]
        self.observed_ = [v for v in bn.nodes if v not in set(hidden)]
        self._sym = {v: string.ascii_letters[i] for i, v in enumerate(bn.nodes)}

    def _family(self, v: str) -> str:
        return "".join(self._sym[u] for u in [*self.bn.parents[v], v])

    def expected_counts(
        self,
        evidence: np.ndarray,
        cpts: Mapping[str, np.ndarray] | None = None,
        *,
        weights: np.ndarray | None = None,
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        bn = self.bn
        cpts = bn.cpts if cpts is None else cpts
        every = "".join(self._sym[v] for v in bn.nodes)
        joint = np.einsum(
            ",".join(self._family(v) for v in bn.nodes) + "->" + every,
            *[cpts[v] for v in bn.nodes],
        )
        n = evidence.shape[0]
        post = np.broadcast_to(joint, (n, *joint.shape)).copy()
        for j, v in enumerate(self.observed_):
            k = bn.cardinality[v]
            shape = [n] + [1] * len(bn.nodes)
            shape[bn.index(v) + 1] = k
            post *= np.eye(k)[evidence[:, j]].reshape(shape)
        p_e = post.reshape(n, -1).sum(axis=1)
        post /= p_e.reshape((n,) + (1,) * len(bn.nodes))
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
        counts = {v: np.einsum(f"z{every},z->{self._family(v)}", post, w) for v in bn.nodes}
        return counts, np.log(p_e)


def _is_nondecreasing(trace: Sequence[float], rtol: float = 1e-10) -> bool:
    t = np.asarray(trace)
    return bool(np.all(np.diff(t) >= -rtol * np.abs(t[:-1])))


# ---------------------------------------------------------------------- reference check
def test_brute_force_estep_agrees_with_junction_tree(small_bn):
    data = forward_sample(small_bn, 300, rng=np.random.default_rng(1))
    hidden = ["H", "C"]
    jt = JunctionTree(small_bn, hidden)
    bf = BruteForceEStep(small_bn, hidden)
    ev = data[:, [small_bn.index(v) for v in jt.observed_]]
    c1, l1 = jt.expected_counts(ev)
    c2, l2 = bf.expected_counts(ev)
    np.testing.assert_allclose(l1, l2, rtol=1e-12)
    for v in small_bn.nodes:
        np.testing.assert_allclose(c1[v], c2[v], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("pseudo_count", [0.0, 1.0])
@pytest.mark.parametrize("sharing", [None, [["A", "A2"]]])
def test_em_matches_brute_force_em(small_bn, sharing, pseudo_count):
    """The whole EM run (random start, iterations, stop) agrees with a brute-force E-step."""
    data = forward_sample(small_bn, 400, rng=np.random.default_rng(2))
    hidden = ["H", "C"]
    kw = dict(sharing=sharing, pseudo_count=pseudo_count, tol=1e-6, max_iter=40)
    ref = ExpectationMaximization(**kw).fit(
        small_bn,
        data,
        hidden,
        rng=np.random.default_rng(3),
        engine=BruteForceEStep(small_bn, hidden),
    )
    em = ExpectationMaximization(**kw).fit(small_bn, data, hidden, rng=np.random.default_rng(3))
    assert em.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(em.log_likelihood_trace_, ref.log_likelihood_trace_, rtol=1e-9)
    for v in small_bn.nodes:
        np.testing.assert_allclose(em.cpts_[v], ref.cpts_[v], atol=1e-8)


# ---------------------------------------------------------------------- monotonicity
ALARM_HIDDEN = ["HYPOVOLEMIA", "LVEDVOLUME", "STROKEVOLUME"]


@pytest.fixture(scope="module")
def alarm_data(alarm):
    return forward_sample(alarm, 500, rng=np.random.default_rng(500))


def test_ml_em_log_likelihood_never_decreases_alarm(alarm, alarm_data):
    """pseudo_count=0 is maximum-likelihood EM: the log-likelihood itself is monotone."""
    em = ExpectationMaximization(pseudo_count=0.0, tol=0.0, max_iter=30).fit(
        alarm, alarm_data, ALARM_HIDDEN, rng=np.random.default_rng(0)
    )
    assert len(em.log_likelihood_trace_) == em.n_iter_ + 1
    assert em.n_iter_ >= 10
    assert _is_nondecreasing(em.log_likelihood_trace_)
    assert em.objective_trace_ == em.log_likelihood_trace_


def test_map_em_objective_never_decreases_alarm(alarm, alarm_data):
    """With a pseudo-count, EM is MAP-EM: ll + pseudo_count * sum(log theta) is monotone."""
    em = ExpectationMaximization(pseudo_count=1.0, tol=0.0, max_iter=30).fit(
        alarm, alarm_data, ALARM_HIDDEN, rng=np.random.default_rng(0)
    )
    assert em.n_iter_ >= 10
    assert _is_nondecreasing(em.objective_trace_)
    assert np.all(np.diff(em.objective_trace_[:5]) > 0)


def test_objective_adds_each_sharing_sets_log_prior_once(small_bn):
    """objective - ll = alpha * sum over sharing sets of sum(log theta), added set by set."""
    data = forward_sample(small_bn, 200, rng=np.random.default_rng(12))
    em = ExpectationMaximization(sharing=[["A", "A2"]], pseudo_count=0.7, max_iter=3).fit(
        small_bn, data, ["H"], rng=np.random.default_rng(2)
    )
    prior = 0
    for group in em.sharing_:
        prior += np.log(em.cpts_[group[0]]).sum()
    assert em.objective_trace_[-1] - em.log_likelihood_trace_[-1] == pytest.approx(
        0.7 * prior, rel=1e-12
    )
    assert em._log_prior(em.cpts_, 0.7) == float(0.7 * prior)


@pytest.mark.parametrize(
    ("sharing", "init"),
    [(None, "random"), ([shared_node_set()], "random_shared"), ([shared_node_set()], "random")],
    ids=["no_sharing", "sharing_tied_start", "sharing_apart_start"],
)
def test_em_monotone_mini_adapt_production(mini_adapt, sharing, init):
    """Monotone from the start, but for shared nodes that start apart (``init="random"``): that
    start is not a point of the shared model, so the guarantee holds from the first M-step on."""
    data = forward_sample(mini_adapt, 500, rng=np.random.default_rng(7))
    hidden = hidden_nodes("O_P")
    engine = JunctionTree(mini_adapt, hidden)
    first = 1 if sharing and init == "random" else 0
    for seed in range(3):
        ml = ExpectationMaximization(
            sharing=sharing, pseudo_count=0.0, tol=0.0, max_iter=25, init=init
        ).fit(mini_adapt, data, hidden, rng=np.random.default_rng(seed), engine=engine)
        assert _is_nondecreasing(ml.log_likelihood_trace_[first:])
        smoothed = ExpectationMaximization(sharing=sharing, tol=0.0, max_iter=25, init=init).fit(
            mini_adapt, data, hidden, rng=np.random.default_rng(seed), engine=engine
        )
        assert _is_nondecreasing(smoothed.objective_trace_[first:])


# ---------------------------------------------------------------------- complete data
@pytest.mark.parametrize("pseudo_count", [0.0, 1.0])
def test_complete_data_converges_immediately_to_closed_form(small_bn, pseudo_count):
    data = forward_sample(small_bn, 250, rng=np.random.default_rng(4))
    em = ExpectationMaximization(pseudo_count=pseudo_count).fit(
        small_bn, data, [], rng=np.random.default_rng(5)
    )
    closed = cpts_from_counts(complete_data_counts(small_bn, data), pseudo_count)
    for v in small_bn.nodes:
        np.testing.assert_allclose(em.cpts_[v], closed[v], rtol=1e-12)
    # the first M-step already gives the closed form; the stopping test needs min_iter lls
    assert em.converged_ and em.n_iter_ == 3
    tr = em.log_likelihood_trace_
    assert tr[1] == pytest.approx(tr[2], rel=1e-12) and tr[2] == pytest.approx(tr[3], rel=1e-12)
    assert tr[0] < tr[1]


# ---------------------------------------------------------------------- stopping rule
def test_stopping_rule_is_libdai_relative_change(small_bn):
    data = forward_sample(small_bn, 300, rng=np.random.default_rng(6))
    tol = 1e-4
    em = ExpectationMaximization(tol=tol, max_iter=100).fit(
        small_bn, data, ["H"], rng=np.random.default_rng(8)
    )
    rec = em.log_likelihood_trace_[: em.n_iter_]  # what was recorded before stopping

    def change(t):  # relative change after t recorded log-likelihoods
        return (rec[t - 1] - rec[t - 2]) / abs(rec[t - 2])

    assert em.converged_
    assert change(em.n_iter_) <= tol
    assert all(change(t) > tol for t in range(3, em.n_iter_))
    assert em.log_likelihood_ == em.log_likelihood_trace_[-1]


def test_absolute_tolerance_and_max_iter(small_bn):
    data = forward_sample(small_bn, 300, rng=np.random.default_rng(6))
    em = ExpectationMaximization(tol=1e-2, relative_tol=False).fit(
        small_bn, data, ["H"], rng=np.random.default_rng(8)
    )
    rec = em.log_likelihood_trace_[: em.n_iter_]
    assert rec[-1] - rec[-2] <= 1e-2
    assert all(rec[t - 1] - rec[t - 2] > 1e-2 for t in range(3, em.n_iter_))
    short = ExpectationMaximization(max_iter=2).fit(
        small_bn, data, ["H"], rng=np.random.default_rng(8)
    )
    assert short.n_iter_ == 2 and not short.converged_
    assert len(short.log_likelihood_trace_) == 3


# ---------------------------------------------------------------------- sharing
def test_shared_nodes_end_with_identical_cpts(mini_adapt):
    data = forward_sample(mini_adapt, 500, rng=np.random.default_rng(9))
    sb = shared_node_set()
    em = ExpectationMaximization(sharing=[sb]).fit(
        mini_adapt, data, hidden_nodes("O_P"), rng=np.random.default_rng(10)
    )
    for v in sb[1:]:
        np.testing.assert_array_equal(em.cpts_[v], em.cpts_[sb[0]])
    assert not np.array_equal(em.cpts_["Health_ish136"], em.cpts_["Health_ish236"])
    assert em.sharing_[0] == sb and all(len(s) == 1 for s in em.sharing_[1:])


@pytest.mark.parametrize("pseudo_count", [0.0, 1.0])
def test_m_step_pools_expected_counts(small_bn, pseudo_count):
    """One iteration from a known start: the shared CPT is the normalised sum of the counts."""
    data = forward_sample(small_bn, 300, rng=np.random.default_rng(11))
    hidden = ["H"]
    start = {v: np.full(t.shape, 1.0 / t.shape[-1]) for v, t in small_bn.cpts.items()}
    start["H"] = np.array([0.35, 0.65])
    start["A"] = start["A2"] = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    em = ExpectationMaximization(
        sharing=[["A", "A2"]], init=start, max_iter=1, pseudo_count=pseudo_count
    ).fit(small_bn, data, hidden, rng=np.random.default_rng(0))
    jt = JunctionTree(small_bn, hidden)
    counts, _ = jt.expected_counts(data[:, [small_bn.index(v) for v in jt.observed_]], start)
    pooled = counts["A"] + counts["A2"]
    expected = (pooled + pseudo_count) / (pooled + pseudo_count).sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(em.cpts_["A"], expected, rtol=1e-12)
    np.testing.assert_allclose(em.cpts_["A2"], expected, rtol=1e-12)
    unshared = cpts_from_counts({"B": counts["B"]}, pseudo_count)["B"]
    np.testing.assert_allclose(em.cpts_["B"], unshared, rtol=1e-12)


def test_random_shared_start_gives_a_sharing_set_one_random_cpt(small_bn):
    data = forward_sample(small_bn, 50, rng=np.random.default_rng(0))
    em = ExpectationMaximization(sharing=[["A", "A2"]], max_iter=1, init="random_shared").fit(
        small_bn, data, ["H", "A", "A2"], rng=np.random.default_rng(1)
    )
    start = em.init_cpts_
    np.testing.assert_array_equal(start["A"], start["A2"])
    for v, t in start.items():
        assert t.shape == small_bn.cpts[v].shape
        np.testing.assert_allclose(t.sum(axis=-1), 1.0)
    assert not np.allclose(start["C"][0], start["C"][1])  # rows drawn independently


def test_random_start_draws_every_node_apart_and_the_first_m_step_ties_them(small_bn):
    """The paper's code randomizes every factor on its own: shared nodes start apart."""
    data = forward_sample(small_bn, 200, rng=np.random.default_rng(0))
    hidden = ["H"]
    em = ExpectationMaximization(sharing=[["A", "A2"]], max_iter=1).fit(
        small_bn, data, hidden, rng=np.random.default_rng(1)
    )
    start = em.init_cpts_
    assert not np.allclose(start["A"], start["A2"])
    np.testing.assert_array_equal(em.cpts_["A"], em.cpts_["A2"])
    # node by node in bn.nodes order, one flat-Dirichlet draw of each table
    rng = np.random.default_rng(1)
    for v in small_bn.nodes:
        e = rng.standard_exponential(small_bn.cpts[v].shape)
        np.testing.assert_array_equal(start[v], e / e.sum(axis=-1, keepdims=True))
    # the first E-step reads each node's own table: the tied CPT pools counts taken apart
    jt = JunctionTree(small_bn, hidden)
    counts, _ = jt.expected_counts(data[:, [small_bn.index(v) for v in jt.observed_]], start)
    pooled = counts["A"] + counts["A2"] + 1.0
    np.testing.assert_allclose(em.cpts_["A"], pooled / pooled.sum(-1, keepdims=True), rtol=1e-12)


def test_random_and_random_shared_are_one_start_without_sharing(small_bn):
    data = forward_sample(small_bn, 200, rng=np.random.default_rng(3))
    runs = [
        ExpectationMaximization(init=init).fit(small_bn, data, ["H"], rng=np.random.default_rng(4))
        for init in ("random", "random_shared")
    ]
    assert runs[0].log_likelihood_trace_ == runs[1].log_likelihood_trace_
    for v in small_bn.nodes:
        np.testing.assert_array_equal(runs[0].init_cpts_[v], runs[1].init_cpts_[v])
        np.testing.assert_array_equal(runs[0].cpts_[v], runs[1].cpts_[v])


def _swap_states(bn: DiscreteBayesianNetwork, cpts, nodes):
    """The same distribution with the two states of each binary node in ``nodes`` renamed."""
    out = {v: np.array(t) for v, t in cpts.items()}
    for x in nodes:
        out[x] = out[x][..., ::-1]
        for c in bn.children(x):
            out[c] = np.flip(out[c], axis=bn.parents[c].index(x))
    return out


def test_recovery_hidden_shared_node(mini_adapt):
    """Only the three SB copies hidden (one shared CPT): EM moves close to the truth.

    A hidden binary node is identified only up to renaming its states (swapping SB's states and
    the matching rows of VB and S leaves the likelihood unchanged), so the error is measured for
    the better of the two labellings. Every start must end closer to the truth than it began; the
    runs that reach the best log-likelihood must be nearly as good as complete data (~23 in L1).
    """
    from bnstudy.metrics import cpt_errors

    data = forward_sample(mini_adapt, 500, rng=np.random.default_rng(12))
    sb = shared_node_set()
    engine = JunctionTree(mini_adapt, sb)
    runs = []
    for seed in range(5):
        em = ExpectationMaximization(sharing=[sb], tol=1e-6).fit(
            mini_adapt, data, sb, rng=np.random.default_rng(seed), engine=engine
        )

        def aligned(cpts):
            swapped = _swap_states(mini_adapt, cpts, sb)
            return min(cpt_errors(mini_adapt.cpts, c)["l1"] for c in (cpts, swapped))

        runs.append((em.log_likelihood_, aligned(em.init_cpts_), aligned(em.cpts_)))
    best_ll = max(r[0] for r in runs)
    assert all(final < start for _, start, final in runs)
    good = [r for r in runs if r[0] > best_ll - 1e-3]
    assert len(good) >= 2
    assert all(final < 0.5 * start and final < 30 for _, start, final in good)


# ---------------------------------------------------------------------- behaviour
def test_deterministic_given_rng_and_hidden_columns_ignored(small_bn):
    data = forward_sample(small_bn, 200, rng=np.random.default_rng(14))
    masked = data.copy()
    masked[:, small_bn.index("H")] = -1
    a = ExpectationMaximization().fit(small_bn, data, ["H"], rng=np.random.default_rng(15))
    b = ExpectationMaximization().fit(small_bn, masked, ["H"], rng=np.random.default_rng(15))
    c = ExpectationMaximization().fit(small_bn, data, ["H"], rng=np.random.default_rng(16))
    assert a.log_likelihood_trace_ == b.log_likelihood_trace_
    for v in small_bn.nodes:
        np.testing.assert_array_equal(a.cpts_[v], b.cpts_[v])
    assert a.log_likelihood_trace_[0] != c.log_likelihood_trace_[0]


def test_init_true_and_mapping(small_bn):
    data = forward_sample(small_bn, 200, rng=np.random.default_rng(17))
    em = ExpectationMaximization(init="true", max_iter=1).fit(
        small_bn, data, ["H"], rng=np.random.default_rng(0), true_cpts=small_bn.cpts
    )
    assert em.error_trace_[0]["l1"] == 0.0
    em2 = ExpectationMaximization(init=dict(small_bn.cpts), max_iter=1).fit(
        small_bn, data, ["H"], rng=np.random.default_rng(0)
    )
    assert em2.log_likelihood_trace_ == em.log_likelihood_trace_


def test_reused_engine_gives_same_result(small_bn):
    data = forward_sample(small_bn, 200, rng=np.random.default_rng(18))
    engine = JunctionTree(small_bn, ["H", "C"])
    a = ExpectationMaximization().fit(small_bn, data, ["C", "H"], rng=np.random.default_rng(1))
    b = ExpectationMaximization().fit(
        small_bn, data, ["C", "H"], rng=np.random.default_rng(1), engine=engine
    )
    assert a.log_likelihood_trace_ == b.log_likelihood_trace_
    assert a.hidden_ == ["H", "C"]


# ---------------------------------------------------------------------- bad input
@pytest.fixture(scope="module")
def small_data(small_bn):
    return forward_sample(small_bn, 50, rng=np.random.default_rng(19))


@pytest.mark.parametrize(
    ("kwargs", "hidden", "match"),
    [
        ({"sharing": [["A", "B"]]}, ["H"], r"sharing set 0 .*nodes \['B'\] differ"),
        ({"sharing": [["A", "nope"]]}, ["H"], r"unknown nodes \['nope'\]"),
        ({"sharing": [["A", "A2"], ["A"]]}, ["H"], r"repeats nodes \['A'\]"),
        ({}, ["H", "ghost"], r"not in network .*\['ghost'\]"),
        ({}, ["H", "H"], r"more than once: \['H'\]"),
        ({}, ["H", "A", "A2", "B", "C", "D"], "all 6 nodes"),
        ({"tol": -1.0}, ["H"], "tol"),
        ({"min_iter": 1}, ["H"], "min_iter"),
        ({"max_iter": 0}, ["H"], "max_iter"),
        ({"pseudo_count": -0.5}, ["H"], "pseudo_count"),
        ({"init": "zeros"}, ["H"], "init must be one of"),
        ({"init": {"H": np.array([0.5, 0.5])}}, ["H"], "no CPT for node 'A'"),
    ],
)
def test_bad_input_raises(small_bn, small_data, kwargs, hidden, match):
    with pytest.raises(ValueError, match=match):
        ExpectationMaximization(**kwargs).fit(
            small_bn, small_data, hidden, rng=np.random.default_rng(0)
        )


def test_bad_data_raises(small_bn, small_data):
    bad = small_data.copy()
    bad[3, small_bn.index("D")] = 3
    with pytest.raises(ValueError, match=r"node 'D' holds the value 3"):
        ExpectationMaximization().fit(small_bn, bad, ["H"], rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="5 columns but network 'small' has 6 nodes"):
        ExpectationMaximization().fit(
            small_bn, small_data[:, :5], ["H"], rng=np.random.default_rng(0)
        )
    with pytest.raises(ValueError, match="engine was compiled for hidden nodes"):
        ExpectationMaximization().fit(
            small_bn,
            small_data,
            ["H"],
            rng=np.random.default_rng(0),
            engine=JunctionTree(small_bn, ["C"]),
        )


def test_hidden_columns_are_not_read(small_bn, small_data):
    """A float array with NaN (the usual missing-value marker) in the hidden column fits as the
    integer data does."""
    holes = small_data.astype(float)
    holes[:, small_bn.index("H")] = np.nan
    fits = [
        ExpectationMaximization().fit(small_bn, d, ["H"], rng=np.random.default_rng(0))
        for d in (small_data, holes)
    ]
    assert fits[0].log_likelihood_trace_ == fits[1].log_likelihood_trace_
    with pytest.raises(ValueError, match="node 'A' holds nan"):
        bad = holes.copy()
        bad[0, small_bn.index("A")] = np.nan
        ExpectationMaximization().fit(small_bn, bad, ["H"], rng=np.random.default_rng(0))


def test_no_rows_raises(small_bn, small_data):
    empty = small_data[:0]
    with pytest.raises(
        ValueError, match=r"network 'small' got data with 0 rows \(shape \(0, 6\)\)"
    ):
        ExpectationMaximization().fit(small_bn, empty, ["H"], rng=np.random.default_rng(0))
    # complete data (no hidden node) is checked as well
    with pytest.raises(ValueError, match="0 rows"):
        ExpectationMaximization().fit(small_bn, empty, [], rng=np.random.default_rng(0))
