"""PC: skeletons equal to pgmpy's, orientation rules, subsets of columns, bad input.

pgmpy 1.1.2's ``PC.estimate(variant="stable")`` deletes edges while it iterates over them (the
original PC), and its ``variant="parallel"`` is PC-stable; with the same G² / X² test (Yates on
2 x 2 strata: ``correction=True``), alpha and ``max_cond_vars=5`` our ``variant="orig"`` and
``variant="stable"`` give the same skeletons. The full alarm network (20000 rows) agrees too
(benchmarks/bench_structure.py); here 12 ventilation variables and 5000 rows keep pgmpy fast, and
without the correction two of these skeletons differ from pgmpy's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bnstudy.networks import forward_sample, samples_to_frame
from bnstudy.structure.pc import meek_rules, orient_v_structures, pc, pc_skeleton

VENT = [
    "INTUBATION",
    "KINKEDTUBE",
    "VENTMACH",
    "VENTTUBE",
    "VENTLUNG",
    "VENTALV",
    "PRESS",
    "MINVOL",
    "ARTCO2",
    "SHUNT",
    "PVSAT",
    "SAO2",
]


@pytest.fixture(scope="module")
def vent(alarm):
    x = forward_sample(alarm, 5000, rng=np.random.default_rng(0))
    cols = [alarm.nodes.index(c) for c in VENT]
    return x, cols, samples_to_frame(alarm, x)[VENT]


def _pgmpy_skeleton(frame, variant):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.estimators import PC

        skel, _ = PC(frame).estimate(
            variant=variant,
            ci_test="g_sq",
            significance_level=0.01,
            max_cond_vars=5,
            return_type="skeleton",
            show_progress=False,
            n_jobs=1,
        )
    names = list(frame.columns)
    return {tuple(sorted((names.index(a), names.index(b)))) for a, b in skel.edges()}


def _edges(adj):
    return {(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(adj | adj.T, 1)), strict=True)}


@pytest.mark.slow
@pytest.mark.parametrize(("ours", "theirs"), [("orig", "stable"), ("stable", "parallel")])
def test_skeleton_equals_pgmpy(vent, ours, theirs):
    x, cols, frame = vent
    skel, _ = pc_skeleton(
        x, columns=cols, alpha=0.01, max_cond_vars=5, variant=ours, correction=True
    )
    assert _edges(skel) == _pgmpy_skeleton(frame, theirs)


def test_stable_is_order_independent(vent):
    x, cols, _ = vent
    a, _ = pc_skeleton(x, columns=cols)
    perm = np.random.default_rng(1).permutation(len(cols))
    b, _ = pc_skeleton(x, columns=[cols[i] for i in perm])
    np.testing.assert_array_equal(a, b[np.ix_(np.argsort(perm), np.argsort(perm))])


def test_collider_and_meek():
    rng = np.random.default_rng(0)
    n = 5000
    a, b = rng.integers(0, 2, (2, n))
    c = (a | b) ^ (rng.random(n) < 0.05)  # a -> c <- b
    d = c ^ (rng.random(n) < 0.1)  # c -> d, oriented by Meek's R1
    g = pc(np.column_stack([a, b, c, d]))
    want = np.zeros((4, 4), dtype=bool)
    want[0, 2] = want[1, 2] = want[2, 3] = True
    np.testing.assert_array_equal(g, want)


def test_orientation_helpers():
    sk = np.zeros((3, 3), dtype=bool)
    sk[0, 1] = sk[1, 0] = sk[1, 2] = sk[2, 1] = True
    chain = orient_v_structures(sk, {(0, 2): (1,)})
    np.testing.assert_array_equal(chain, sk)  # 1 separates 0 and 2: no collider
    coll = orient_v_structures(sk, {(0, 2): ()})
    assert coll[0, 1] and not coll[1, 0] and coll[2, 1] and not coll[1, 2]
    # R2: 0 -> 1 -> 2 and 0 - 2  =>  0 -> 2
    g = np.zeros((3, 3), dtype=bool)
    g[0, 1] = g[1, 2] = g[0, 2] = g[2, 0] = True
    out = meek_rules(g)
    assert out[0, 2] and not out[2, 0]


def test_subset_and_sepsets(alarm):
    x = forward_sample(alarm, 3000, rng=np.random.default_rng(2))
    g, sep = pc(x, columns=[0, 3, 4, 5], return_sepsets=True)
    assert g.shape == (4, 4)
    for (u, v), s in sep.items():
        assert u < v and not g[u, v] and not g[v, u] and u not in s and v not in s


def test_bad_input(vent):
    x, _, _ = vent
    with pytest.raises(ValueError, match="alpha"):
        pc(x, alpha=0.0)
    with pytest.raises(ValueError, match="variant"):
        pc(x, variant="parallel")
    with pytest.raises(ValueError, match="max_cond_vars"):
        pc(x, max_cond_vars=-1)
    with pytest.raises(ValueError, match="column index"):
        pc(x, columns=[0, 99])
    with pytest.raises(ValueError, match="single value"):
        pc(np.column_stack([np.zeros(10, int), np.arange(10) % 2]))
