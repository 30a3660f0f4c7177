"""LSBN (Algorithms 1-3): mergence, conflict resolution, orientation, learning on alarm, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from bnstudy.metrics.structure import skeleton_metrics
from bnstudy.networks import forward_sample, load_network
from bnstudy.structure.hill_climb import is_dag
from bnstudy.structure.lsbn import (
    DEFAULTS,
    LOCAL_LEARNERS,
    SETTINGS,
    Piece,
    core_piece,
    learn_global,
    lsbn,
    merge_pieces,
    merge_two,
    orient,
    prepare,
    sample_subcommunities,
    settings_from_config,
)


def _piece(nodes, edges):
    return Piece(np.array(sorted(nodes)), frozenset(tuple(sorted(e)) for e in edges))


def _never(nodes):
    raise AssertionError(f"no conflict expected, re-learned {nodes}")


STRONG = np.ones((6, 6), dtype=bool)


def test_merging_two_structures_without_conflict_is_their_union():
    # a: chain 0-1-2; b: 2-3, 3-4 and no edge 2-4: they share node 2 only, nothing to disagree on
    a = _piece([0, 1, 2], [(0, 1), (1, 2)])
    b = _piece([2, 3, 4], [(2, 3), (3, 4)])
    merged, conflicts, relearned = merge_two(
        a, b, strong=STRONG, relearn=_never, context=lambda u, v: np.array([u, v])
    )
    assert merged.nodes.tolist() == [0, 1, 2, 3, 4]
    assert merged.edges == {(0, 1), (1, 2), (2, 3), (3, 4)}
    assert (conflicts, relearned) == (0, 0)


def test_agreed_pairs_are_kept_and_cross_pairs_are_not_edges():
    a = _piece([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3)])
    b = _piece([1, 2, 3, 4], [(1, 2), (2, 3), (3, 4)])
    merged, conflicts, _ = merge_two(
        a, b, strong=STRONG, relearn=_never, context=lambda u, v: np.array([u, v])
    )
    assert conflicts == 0
    assert merged.edges == {(0, 1), (1, 2), (2, 3), (3, 4)}  # (0, 4) was decided by neither


def test_conflict_in_a_candidate_triplet_is_relearned_on_its_cluster():
    # a saw 0-2 (an indirect edge: 0 - 1 - 2 is a chain), b did not: conflict on (0, 2).
    # The triangle 0-1-2 of the union is a candidate triplet; re-learning its cluster drops 0-2.
    a = _piece([0, 1, 2], [(0, 1), (1, 2), (0, 2)])
    b = _piece([0, 1, 2, 3], [(0, 1), (1, 2), (2, 3)])
    calls = []

    def relearn(nodes):
        calls.append(sorted(np.asarray(nodes).tolist()))
        return frozenset({(0, 1), (1, 2)})

    merged, conflicts, relearned = merge_two(
        a, b, strong=STRONG, relearn=relearn, context=lambda u, v: np.array([u, v])
    )
    assert calls == [[0, 1, 2]]
    assert (conflicts, relearned) == (1, 1)
    assert merged.edges == {(0, 1), (1, 2), (2, 3)}


def test_conflict_kept_when_relearning_confirms_it():
    a = _piece([0, 1, 2], [(0, 1), (1, 2), (0, 2)])
    b = _piece([0, 1, 2], [(0, 1), (1, 2)])
    merged, _, _ = merge_two(
        a,
        b,
        strong=STRONG,
        relearn=lambda nodes: frozenset({(0, 1), (1, 2), (0, 2)}),
        context=lambda u, v: np.array([u, v]),
    )
    assert merged.edges == {(0, 1), (1, 2), (0, 2)}


def test_weak_triangle_is_no_triplet_and_the_pair_is_relearned_in_context():
    # the 0-2 weight is below the triplet threshold: no candidate triplet, re-learn on context
    strong = STRONG.copy()
    strong[0, 2] = strong[2, 0] = False
    a = _piece([0, 1, 2], [(0, 1), (1, 2), (0, 2)])
    b = _piece([0, 1, 2], [(0, 1), (1, 2)])
    calls = []

    def relearn(nodes):
        calls.append(sorted(np.asarray(nodes).tolist()))
        return frozenset()

    merged, conflicts, relearned = merge_two(
        a, b, strong=strong, relearn=relearn, context=lambda u, v: np.array([u, v, 5])
    )
    assert calls == [[0, 2, 5]]
    assert (conflicts, relearned) == (1, 1)
    assert merged.edges == {(0, 1), (1, 2)}


def test_conflicts_in_one_context_are_relearned_once():
    # two weak conflicts, (0, 2) and (0, 3): the context of the first holds both
    strong = np.zeros((6, 6), dtype=bool)
    a = _piece([0, 1, 2, 3], [(0, 2), (0, 3)])
    b = _piece([0, 1, 2, 3], [])
    calls = []

    def relearn(nodes):
        calls.append(sorted(np.asarray(nodes).tolist()))
        return frozenset({(0, 3)})

    merged, conflicts, relearned = merge_two(
        a, b, strong=strong, relearn=relearn, context=lambda u, v: np.array([0, 1, 2, 3])
    )
    assert calls == [[0, 1, 2, 3]] and (conflicts, relearned) == (2, 1)
    assert merged.edges == {(0, 3)}


def test_prefetch_gets_every_node_set_to_relearn_in_order_before_the_first():
    # conflict (0, 2) in the strong triangle 0-1-2; the weak conflict (3, 4) in its context
    strong = STRONG.copy()
    strong[3, 4] = strong[4, 3] = False
    a = _piece([0, 1, 2, 3, 4], [(0, 1), (1, 2), (0, 2), (3, 4)])
    b = _piece([0, 1, 2, 3, 4], [(0, 1), (1, 2)])
    events = []

    def relearn(nodes):
        events.append(("relearn", sorted(np.asarray(nodes).tolist())))
        return frozenset({(3, 4)})

    def prefetch(node_sets):
        events.append(("prefetch", [sorted(np.asarray(n).tolist()) for n in node_sets]))

    merged, conflicts, relearned = merge_two(
        a,
        b,
        strong=strong,
        relearn=relearn,
        context=lambda u, v: np.array([u, v, 5]),
        prefetch=prefetch,
    )
    assert events == [
        ("prefetch", [[0, 1, 2], [3, 4, 5]]),
        ("relearn", [0, 1, 2]),
        ("relearn", [3, 4, 5]),
    ]
    assert (conflicts, relearned) == (2, 2)
    assert merged.edges == {(0, 1), (1, 2), (3, 4)}


def test_vote_decides_conflicts_in_no_triplet_and_in_too_large_clusters():
    # (0, 2) lies in the candidate triplet 0-1-2, but its cluster (3 nodes) exceeds max_size 2:
    # like the weak pair (3, 4), it is decided by the vote, and nothing is re-learned
    strong = STRONG.copy()
    strong[3, 4] = strong[4, 3] = False
    a = _piece([0, 1, 2, 3, 4], [(0, 1), (1, 2), (0, 2), (3, 4)])
    b = _piece([0, 1, 2, 3, 4], [(0, 1), (1, 2)])
    asked = []

    def vote(u, v):
        asked.append((u, v))
        return (u, v) == (3, 4)

    merged, conflicts, relearned = merge_two(
        a, b, strong=strong, relearn=_never, context=_never, max_size=2, vote=vote
    )
    assert sorted(asked) == [(0, 2), (3, 4)] and (conflicts, relearned) == (2, 0)
    assert merged.edges == {(0, 1), (1, 2), (3, 4)}


def test_a_subcommunity_decides_only_the_pairs_at_its_core():
    # sub-community {0, 1, 2, 3} with core {0}: the 2-3 edge (two blanket members) is dropped,
    # and the pair is left to a piece whose core holds 2 or 3
    a = core_piece(np.array([3, 1, 0, 2]), np.array([0]), frozenset({(0, 1), (2, 3)}))
    assert a.edges == {(0, 1)}
    assert a.decided == {(0, 1), (0, 2), (0, 3)}
    b = core_piece(np.array([0, 1, 2, 3]), np.array([2]), frozenset({(0, 1), (1, 2)}))
    merged, conflicts, relearned = merge_two(a, b, strong=STRONG, relearn=_never, context=_never)
    # (0, 1): a says edge, b does not decide it; (0, 2): both decide, both say no edge
    assert (conflicts, relearned) == (0, 0)
    assert merged.edges == {(0, 1), (1, 2)}
    assert merged.decided == a.decided | b.decided


def test_mergence_takes_the_largest_jaccard_pair_first():
    pieces = [
        _piece([0, 1, 2], [(0, 1)]),
        _piece([5, 6, 7], [(5, 6)]),
        _piece([0, 1, 2, 3], [(0, 1), (2, 3)]),  # Jaccard 3/4 with the first
        _piece([6, 7, 8], [(7, 8)]),  # Jaccard 2/4 with the second
    ]
    order = []

    def merge(a, b):
        order.append((a.nodes.tolist(), b.nodes.tolist()))
        return merge_two(a, b, strong=STRONG, relearn=_never, context=lambda u, v: None)

    whole, conflicts, relearned = merge_pieces(pieces, merge)
    assert order[0] == ([0, 1, 2], [0, 1, 2, 3])
    assert order[1] == ([5, 6, 7], [6, 7, 8])
    assert len(order) == 3
    assert whole.nodes.tolist() == [0, 1, 2, 3, 5, 6, 7, 8]
    assert whole.edges == {(0, 1), (2, 3), (5, 6), (7, 8)}
    assert (conflicts, relearned) == (0, 0)


def test_orientation_follows_votes_and_never_closes_a_cycle():
    skel = np.zeros((3, 3), dtype=bool)
    for u, v in [(0, 1), (1, 2), (0, 2)]:
        skel[u, v] = skel[v, u] = True
    votes = np.zeros((3, 3))
    votes[0, 1] = votes[1, 2] = votes[2, 0] = 1.0  # the votes form a cycle
    dag = orient(skel, votes)
    assert is_dag(dag)
    assert ((dag | dag.T) == skel).all()
    assert dag.sum() == 3


def test_subcommunities_cover_the_community_and_its_blankets_within_the_cap():
    rng = np.random.default_rng(0)
    p = 12
    mb = np.zeros((p, p), dtype=bool)
    for u, v in [(0, 1), (1, 2), (2, 3), (3, 8), (0, 9), (4, 5), (5, 6), (6, 7), (7, 10)]:
        mb[u, v] = mb[v, u] = True
    w = rng.random((p, p))
    w = (w + w.T) / 2
    subs = sample_subcommunities([0, 1, 2, 3, 4, 5], mb, w, max_size=4, rng=rng)
    covered = set(np.concatenate(subs).tolist())
    assert {0, 1, 2, 3, 4, 5} <= covered
    assert all(len(s) <= 4 for s in subs)
    again = sample_subcommunities(
        [0, 1, 2, 3, 4, 5], mb, w, max_size=4, rng=np.random.default_rng(0)
    )
    first = sample_subcommunities(
        [0, 1, 2, 3, 4, 5], mb, w, max_size=4, rng=np.random.default_rng(0)
    )
    assert [s.tolist() for s in again] == [s.tolist() for s in first]
    # the cores: inside their sub-communities, together exactly the community
    pairs = sample_subcommunities(
        [0, 1, 2, 3, 4, 5], mb, w, max_size=4, rng=np.random.default_rng(0), return_cores=True
    )
    assert [sub.tolist() for sub, _ in pairs] == [s.tolist() for s in first]
    assert all(set(core) <= set(sub) for sub, core in pairs)
    assert set(np.concatenate([core for _, core in pairs]).tolist()) == {0, 1, 2, 3, 4, 5}


# LSBN on alarm --------------------------------------------------------------------------------

FAST = {"mcmc_steps": 300, "mcmc_burn_in": 60, "max_parents": 2, "max_size": 12}
# Skeleton F measured on these 3000 rows (seed 0, generator seed 1): model averaging 0.935,
# ARACNE 0.759, PC 0.943, greedy 0.926, MMHC 0.955; the bounds leave a margin of about 0.05.
F_BOUNDS = {
    "aracne": 0.70,
    "pc": 0.89,
    "hill_climb": 0.87,
    "mmhc": 0.90,
    "model_averaging": 0.88,
}


@pytest.fixture(scope="module")
def alarm_data(mirror):
    bn = load_network(mirror / "bif" / "alarm.bif.gz")
    x = forward_sample(bn, 3000, rng=np.random.default_rng(0))
    edges = [(bn.nodes.index(u), bn.nodes.index(v)) for u, v in bn.edges]
    return x, edges


@pytest.mark.slow
@pytest.mark.parametrize("learner", LOCAL_LEARNERS)
def test_lsbn_learns_a_dag_over_all_of_alarm(alarm_data, learner):
    x, edges = alarm_data
    res = lsbn(x, local_learner=learner, rng=np.random.default_rng(1), **FAST)
    p = x.shape[1]
    assert res.adjacency.shape == (p, p) and is_dag(res.adjacency)
    assert ((res.adjacency | res.adjacency.T) == res.skeleton).all()
    assert set().union(*map(set, res.communities)) == set(range(p))
    assert skeleton_metrics(res.skeleton, edges, p)["f_score"] >= F_BOUNDS[learner]
    assert set(res.timings) >= {"ropart", "markov_blankets", "local_learn", "mergence", "total"}


@pytest.mark.slow
def test_relearning_conflicts_instead_of_voting(alarm_data):
    x, edges = alarm_data
    kw = {"local_learner": "pc", "max_size": 10}
    voted = lsbn(x, rng=np.random.default_rng(2), **kw)
    relearned = lsbn(x, rng=np.random.default_rng(2), conflict_fallback="relearn", **kw)
    assert relearned.n_local_calls > voted.n_local_calls
    for res in (voted, relearned):
        assert skeleton_metrics(res.skeleton, edges, x.shape[1])["f_score"] >= F_BOUNDS["pc"]


@pytest.mark.slow
def test_lsbn_is_deterministic_given_the_generator(alarm_data):
    x, _ = alarm_data
    a = lsbn(x, local_learner="pc", rng=np.random.default_rng(3), max_size=10)
    b = lsbn(x, local_learner="pc", rng=np.random.default_rng(3), max_size=10)
    assert (a.adjacency == b.adjacency).all()
    assert a.subcommunities == b.subcommunities


@pytest.mark.slow
@pytest.mark.parametrize(("learner", "fallback"), [("pc", "relearn"), ("model_averaging", "vote")])
def test_the_result_is_the_same_for_any_number_of_processes(alarm_data, learner, fallback):
    x, _ = alarm_data
    kw = {**FAST, "max_size": 8, "conflict_fallback": fallback}
    one, two = (
        lsbn(x, local_learner=learner, rng=np.random.default_rng(5), n_jobs=n, **kw) for n in (1, 2)
    )
    assert one.n_relearned > 0 and one.n_local_calls > len(one.subcommunities) // 2
    assert (one.adjacency == two.adjacency).all() and (one.skeleton == two.skeleton).all()
    assert one.subcommunities == two.subcommunities
    assert (one.n_conflicts, one.n_relearned, one.n_local_calls) == (
        two.n_conflicts,
        two.n_relearned,
        two.n_local_calls,
    )


@pytest.mark.slow
def test_prepared_partition_and_blankets_give_the_same_result(alarm_data):
    x, _ = alarm_data
    prepared = prepare(x, max_size=10)
    for learner in ("pc", "aracne"):
        a = lsbn(x, local_learner=learner, rng=np.random.default_rng(4), max_size=10)
        b = lsbn(
            x,
            local_learner=learner,
            rng=np.random.default_rng(4),
            prepared=prepared,
            max_size=10,
        )
        assert (a.skeleton == b.skeleton).all() and a.subcommunities == b.subcommunities
        assert b.timings["markov_blankets"] == prepared.timings["markov_blankets"]
    with pytest.raises(ValueError, match="prepared does not match"):
        lsbn(x[:, :20], local_learner="pc", rng=np.random.default_rng(0), prepared=prepared)


def test_constant_columns_get_no_edges():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 2000)
    b = a ^ (rng.random(2000) < 0.1)
    x = np.column_stack([a, np.zeros(2000, dtype=int), b])
    res = lsbn(x, local_learner="pc", rng=rng)
    assert res.skeleton.astype(int).tolist() == [[0, 0, 1], [0, 0, 0], [1, 0, 0]]
    assert [1] in res.communities
    dag, skel = learn_global(x, method="pc", rng=rng)
    assert skel[0, 2] and not skel[1].any()


# Bad input ------------------------------------------------------------------------------------

X = np.random.default_rng(0).integers(0, 2, (200, 4))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"local_learner": "bogus"}, "bogus"),
        ({"local_learner": "pc", "t_avg": 1.5}, "t_avg"),
        ({"local_learner": "pc", "t_avg": -0.1}, "t_avg"),
        ({"local_learner": "pc", "mb_alpha": 0.0}, "mb_alpha"),
        ({"local_learner": "pc", "second_order_threshold": 1.0}, "second_order_threshold"),
        ({"local_learner": "model_averaging", "max_size": 100}, "max_size"),
        ({"local_learner": "pc", "max_size": 1}, "max_size"),
        ({"local_learner": "pc", "tau": -1}, "tau"),
        ({"local_learner": "pc", "mcmc_burn_in": 5000}, "mcmc_burn_in"),
        ({"local_learner": "pc", "typo_setting": 1}, "typo_setting"),
        ({"local_learner": "pc", "conflict_fallback": "coin"}, "conflict_fallback"),
        ({"local_learner": "pc", "n_jobs": 0}, "n_jobs"),
        ({"local_learner": "pc", "n_jobs": 1.5}, "n_jobs"),
    ],
)
def test_bad_input_raises_naming_it(kwargs, match):
    with pytest.raises(ValueError, match=match):
        lsbn(X, rng=np.random.default_rng(0), **kwargs)


def test_unknown_global_method_and_global_model_averaging_raise():
    with pytest.raises(ValueError, match="model_averaging"):
        learn_global(X, method="model_averaging", rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="bogus"):
        learn_global(X, method="bogus", rng=np.random.default_rng(0))


def test_bad_data_raises():
    with pytest.raises(ValueError):
        lsbn(-X, local_learner="pc", rng=np.random.default_rng(0))


# The lsbn config keys that describe the study (what to run), not a setting of the learner.
STUDY_KEYS = {"networks", "n_samples", "replicates", "methods"}


@pytest.mark.parametrize("config", ["config.yaml", "smoke.yaml", "paper.yaml"])
def test_every_config_key_is_a_setting_or_a_study_key(repo_root, config):
    section = yaml.safe_load((repo_root / "config" / config).read_text())["lsbn"]
    settings = settings_from_config(section)
    assert set(settings) | STUDY_KEYS == set(section)
    assert settings == {k: section[k] for k in section if k not in STUDY_KEYS}
    assert set(SETTINGS) == set(DEFAULTS) >= set(settings)


def test_settings_from_config_keeps_only_settings():
    section = {"networks": ["alarm"], "methods": ["pc"], "max_size": 9, "mcmc_thin": 5}
    assert settings_from_config(section) == {"max_size": 9, "mcmc_thin": 5}
    assert settings_from_config({}) == {}
