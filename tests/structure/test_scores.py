"""BDeu family scores: equal to pgmpy's BDeu on alarm, caching, batched paths agree."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import gammaln

from bnstudy.networks import samples_to_frame
from bnstudy.structure.scores import BDeuScore, bdeu_local_score


def _true_adjacency(bn):
    idx = {v: i for i, v in enumerate(bn.nodes)}
    a = np.zeros((len(idx), len(idx)), dtype=bool)
    for u, v in bn.edges:
        a[idx[u], idx[v]] = True
    return a


def test_bdeu_by_hand():
    x = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
    ess, q, r = 10.0, 2, 2
    a_j, a_jk = ess / q, ess / (q * r)
    # parent 0 -> child counts [1, 1]; parent 1 -> [0, 2]; empty cells contribute 0
    want = (
        2 * (gammaln(a_j) - gammaln(a_j + 2))
        + 2 * (gammaln(a_jk + 1) - gammaln(a_jk))
        + (gammaln(a_jk + 2) - gammaln(a_jk))
    )
    assert bdeu_local_score(x, 1, [0]) == pytest.approx(want, rel=1e-12)


def test_equal_to_pgmpy_bdeu_on_alarm(alarm, alarm_data, cards):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.estimators import BDeu
    frame = samples_to_frame(alarm, alarm_data)
    names = list(frame.columns)
    ref = BDeu(frame, equivalent_sample_size=10)
    ours = BDeuScore(alarm_data, cards, ess=10)
    rng = np.random.default_rng(2)
    fams = []
    for _ in range(60):
        m = int(rng.integers(0, 5))
        v = rng.choice(len(names), m + 1, replace=False)
        fams.append((int(v[0]), [int(u) for u in v[1:]]))
    got = ours.local_scores(fams)
    want = np.array([ref.local_score(names[v], [names[u] for u in pa]) for v, pa in fams])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # the whole true network
    assert ours.score(_true_adjacency(alarm)) == pytest.approx(
        ref.score(alarm.to_pgmpy()), rel=1e-6
    )


def test_cache_and_batched_paths_agree(alarm_data, cards):
    a = BDeuScore(alarm_data, cards)
    a.prime_single_parents()
    assert len(a) == 37 + 37 * 36
    b = BDeuScore(alarm_data, cards)
    fams = [(3, [7]), (7, [3]), (10, []), (20, [5])]
    np.testing.assert_allclose(a.local_scores(fams), b.local_scores(fams), rtol=1e-12)
    c = BDeuScore(alarm_data, cards)
    ext = [u for u in range(37) if u not in (30, 2, 9)]
    got = c.extended_scores(30, [2, 9], ext)
    want = BDeuScore(alarm_data, cards).local_scores([(30, [2, 9, u]) for u in ext])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    n = c.n_computed
    c.extended_scores(30, [9, 2], ext)  # cached: parent order does not matter
    assert c.n_computed == n
    # no parents (dense counts), and parents with more configurations than rows (sparse path)
    for base in ([], [0, 1, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13]):
        ext = [u for u in range(37) if u not in (30, *base)]
        got = BDeuScore(alarm_data, cards).extended_scores(30, base, ext)
        want = BDeuScore(alarm_data, cards).local_scores([(30, [*base, u]) for u in ext])
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_true_parents_score_higher(alarm, alarm_data, cards):
    s = BDeuScore(alarm_data, cards)
    adj = _true_adjacency(alarm)
    for v in range(len(alarm.nodes)):
        pa = np.flatnonzero(adj[:, v])
        if pa.size:
            assert s.local_score(v, pa) > s.local_score(v, [])


def test_bad_input():
    x = np.array([[0, 1], [1, 0], [1, 1]])
    with pytest.raises(ValueError, match="ess"):
        BDeuScore(x, ess=0)
    s = BDeuScore(x)
    with pytest.raises(ValueError, match="own parent"):
        s.local_score(0, [0])
    with pytest.raises(ValueError, match="out of range"):
        s.local_score(0, [4])
    with pytest.raises(ValueError, match="non-negative"):
        BDeuScore(np.array([[0, -1], [1, 0]]))
