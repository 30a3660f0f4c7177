"""G² and X² conditional-independence tests: against scipy and pgmpy, batching, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from bnstudy.networks import forward_sample, samples_to_frame
from bnstudy.structure.citests import as_discrete_data, ci_test, ci_tests


@pytest.fixture(scope="module")
def alarm_data(alarm):
    return forward_sample(alarm, 3000, rng=np.random.default_rng(11))


def test_marginal_g2_and_chi2_equal_scipy_on_a_known_table():
    table = np.array([[30, 10, 5], [10, 25, 20]])
    rows = np.repeat(np.array([[i, j] for i in range(2) for j in range(3)]), table.ravel(), axis=0)
    g, df, p = ci_test(rows, None, 0, 1, method="g2")
    ref = stats.chi2_contingency(table, lambda_="log-likelihood", correction=False)
    assert g == pytest.approx(ref.statistic, rel=1e-12)
    assert df == ref.dof == 2
    assert p == pytest.approx(ref.pvalue, rel=1e-9)
    x2, df2, p2 = ci_test(rows, None, 0, 1, method="chi2")
    ref2 = stats.chi2_contingency(table, correction=False)
    assert x2 == pytest.approx(ref2.statistic, rel=1e-12)
    assert p2 == pytest.approx(ref2.pvalue, rel=1e-9)


def test_yates_correction_equals_scipy_on_2x2():
    table = np.array([[12, 3], [4, 15]])
    rows = np.repeat(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), table.ravel(), axis=0)
    for method, lam in (("g2", "log-likelihood"), ("chi2", "pearson")):
        s, df, _ = ci_test(rows, None, 0, 1, method=method, correction=True)
        ref = stats.chi2_contingency(table, lambda_=lam, correction=True)
        assert s == pytest.approx(ref.statistic, rel=1e-12)
        assert df == 1


def test_conditional_g2_is_sum_over_strata():
    rng = np.random.default_rng(0)
    z = rng.integers(0, 3, 4000)
    x = (z + rng.integers(0, 2, 4000)) % 3
    y = (z * 2 + rng.integers(0, 2, 4000)) % 4
    d = np.column_stack([x, y, z])
    g, df, _ = ci_test(d, None, 0, 1, [2])
    total, dof = 0.0, 0
    for s in range(3):
        m = z == s
        tab = np.zeros((3, 4))
        np.add.at(tab, (x[m], y[m]), 1)
        tab = tab[tab.sum(1) > 0][:, tab.sum(0) > 0]  # observed states only: adjusted dof
        r = stats.chi2_contingency(tab, lambda_="log-likelihood", correction=False)
        total += r.statistic
        dof += r.dof
    assert g == pytest.approx(total, rel=1e-10)
    assert df == dof
    _, df_classic, _ = ci_test(d, None, 0, 1, [2], dof="classic")
    assert df_classic == (3 - 1) * (4 - 1) * 3


def test_matches_pgmpy_tests_on_alarm(alarm, alarm_data):
    """pgmpy's g_sq / chi_square (per-stratum chi2_contingency, Yates on 2x2 strata)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.estimators.CITests import chi_square, g_sq
    frame = samples_to_frame(alarm, alarm_data)
    names = list(frame.columns)
    cards = [alarm.cardinality[v] for v in alarm.nodes]
    d = as_discrete_data(alarm_data, cards)
    rng = np.random.default_rng(3)
    for _ in range(25):
        m = int(rng.integers(0, 4))
        v = rng.choice(len(names), m + 2, replace=False)
        x, y, z = int(v[0]), int(v[1]), [int(i) for i in v[2:]]
        for method, fn in (("g2", g_sq), ("chi2", chi_square)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref_stat, ref_p, ref_dof = fn(
                    names[x], names[y], [names[i] for i in z], frame, boolean=False
                )
            s, df, p = ci_test(d, None, x, y, z, method=method, correction=True)
            assert s == pytest.approx(ref_stat, rel=1e-9, abs=1e-9)
            assert df == ref_dof
            if ref_dof > 0:
                assert p == pytest.approx(ref_p, abs=1e-12)


def test_batch_equals_single_tests_and_shared_z(alarm_data):
    rng = np.random.default_rng(5)
    for m in (0, 1, 3, 9):  # 9 conditioning variables: compressed strata
        v = np.array([rng.choice(37, m + 2, replace=False) for _ in range(12)])
        s, df, p = ci_tests(alarm_data, None, v[:, 0], v[:, 1], v[:, 2:])
        for k in range(len(v)):
            s1, df1, p1 = ci_test(alarm_data, None, v[k, 0], v[k, 1], v[k, 2:])
            assert s[k] == pytest.approx(s1, rel=1e-12, abs=1e-12)
            assert df[k] == df1 and p[k] == pytest.approx(p1)
    # one conditioning set shared by the batch takes the folded-key path
    z = [5, 9, 20]
    ys = np.array([i for i in range(1, 37) if i not in z])
    s, df, _ = ci_tests(alarm_data, None, np.zeros_like(ys), ys, np.tile(z, (ys.size, 1)))
    for k in (0, 7, ys.size - 1):
        s1, df1, _ = ci_test(alarm_data, None, 0, ys[k], z)
        assert s[k] == pytest.approx(s1, rel=1e-12) and df[k] == df1


@pytest.mark.parametrize("method", ["g2", "chi2"])
@pytest.mark.parametrize("dof", ["adjusted", "classic"])
@pytest.mark.parametrize("z", [[], [5], [5, 9, 20], [1, 2, 5, 9, 13, 20, 22, 30]])
def test_shared_target_and_z_equals_single_tests(alarm_data, method, dof, z):
    # one X and one Z for the whole batch (IAMB, MMPC): dense (z, x, y) tables, the (z, x)
    # pairs compressed when Z has more configurations than rows
    ys = np.array([i for i in range(1, 37) if i not in z])
    zs = np.tile(np.array(z, dtype=np.int64), (ys.size, 1))
    s, df, p = ci_tests(alarm_data, None, np.zeros_like(ys), ys, zs, method=method, dof=dof)
    for k in range(ys.size):
        s1, df1, p1 = ci_test(alarm_data, None, 0, ys[k], z, method=method, dof=dof)
        assert s[k] == pytest.approx(s1, rel=1e-9, abs=1e-8)
        assert df[k] == df1 and p[k] == pytest.approx(p1, rel=1e-6, abs=1e-12)


def test_independent_and_dependent_decisions():
    rng = np.random.default_rng(1)
    z = rng.integers(0, 2, 5000)
    x = z ^ (rng.random(5000) < 0.2)
    y = z ^ (rng.random(5000) < 0.2)
    d = np.column_stack([x, y, z])
    assert ci_test(d, None, 0, 1)[2] < 1e-10  # dependent marginally
    assert ci_test(d, None, 0, 1, [2])[2] > 0.01  # independent given the common cause


def test_zero_dof_gives_p_one():
    x = np.array([0, 1, 0, 1] * 10)
    d = np.column_stack([x, x, x])  # x is constant within every stratum of z = x
    s, df, p = ci_test(d, None, 0, 1, [2])
    assert df == 0 and p == 1.0 and s == 0.0


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (np.array([[0, 1.5], [1, 0]]), "non-integer"),
        (np.array([[0, -1], [1, 0]]), "non-negative"),
        (np.array([[0, 1], [0, 0], [0, 1]]), "single value"),
        (np.array([0, 1, 2]), "2-D"),
    ],
)
def test_bad_data_raises(data, match):
    with pytest.raises(ValueError, match=match):
        ci_test(data, None, 0, 1)


def test_bad_arguments_raise():
    d = np.array([[0, 1, 0], [1, 0, 1], [1, 1, 0]])
    with pytest.raises(ValueError, match="method"):
        ci_test(d, None, 0, 1, method="bogus")
    with pytest.raises(ValueError, match="dof"):
        ci_test(d, None, 0, 1, dof="bogus")
    with pytest.raises(ValueError, match="x and y must differ"):
        ci_test(d, None, 1, 1)
    with pytest.raises(ValueError, match="must not contain x or y"):
        ci_test(d, None, 0, 1, [1])
    with pytest.raises(ValueError, match="out of range"):
        ci_test(d, None, 0, 5)
    with pytest.raises(ValueError, match="cards"):
        ci_test(d, [2, 1, 2], 0, 1)


@pytest.mark.parametrize("top", [65535, 65536, 1 << 20])
def test_states_beyond_uint16_are_counted(top):
    """Issue 10: a state value of 65536 (int64 states) met a uint16 key: UFuncTypeError."""
    from bnstudy.structure import pc
    from bnstudy.structure.citests import grouped_counts

    rng = np.random.default_rng(3)
    n = 400
    x0 = rng.integers(0, 2, n)
    x1 = x0 ^ (rng.random(n) < 0.1)
    x3 = x0 * 30000 + rng.integers(0, 3, n)
    x3[:5] = top
    data = np.column_stack([x0, x1, rng.integers(0, 3, n), x3])
    d = as_discrete_data(data)
    tables = grouped_counts(d, np.array([[3]]), np.array([[0, 1]]))
    # reference: rows counted by (rank of x3 among its values, x0, x1)
    rank = np.unique(x3, return_inverse=True)[1]
    expected = np.bincount(rank * 4 + x0 * 2 + x1)
    np.testing.assert_array_equal(tables.cell, np.flatnonzero(expected))
    np.testing.assert_array_equal(tables.count, expected[expected > 0])
    skeleton = pc(data)
    assert skeleton.shape == (4, 4)


@pytest.mark.parametrize("size", [1, 7, 300, 5000, (1 << 20) + 10_000])
def test_counting_compression_equals_numpy_unique(size):
    """Keys renumbered by counting are np.unique's (sorted values, inverse), also past the limit
    where np.unique itself is used."""
    from bnstudy.structure.citests import _unique_inverse

    rng = np.random.default_rng(size)
    key = rng.integers(0, size, 1000) if size > 1 else np.zeros(1000, dtype=np.int64)
    uniq, inverse = _unique_inverse(key, size)
    ref_uniq, ref_inverse = np.unique(key, return_inverse=True)
    np.testing.assert_array_equal(uniq, ref_uniq)
    np.testing.assert_array_equal(inverse, ref_inverse)
    assert inverse.dtype == ref_inverse.dtype


def test_compressed_key_numbers_the_configurations_that_occur_in_order(alarm_data):
    """The folded key of a conditioning set is the rank of each row's configuration among those
    that occur (what sorting the mixed-radix keys gives)."""
    from bnstudy.structure.citests import _compressed_key

    d = as_discrete_data(alarm_data)
    z = np.array([4, 11, 20])
    key, size = _compressed_key(d.columns, d.cards, z)
    radix = np.zeros(d.n_samples, dtype=np.int64)
    for v in z:
        radix = radix * int(d.cards[v]) + d.columns[v]
    rank = np.unique(radix, return_inverse=True)[1]
    np.testing.assert_array_equal(key, rank)
    assert size == rank.max() + 1
