"""Mean absolute error, variation of information and the VI difference."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.mrf import (
    mean_absolute_error,
    random_grouping,
    variation_of_information,
    vi_difference,
)


def test_vi_of_identical_and_relabelled_groupings_is_zero():
    g = np.array([0, 0, 1, 2, 2, 2])
    assert variation_of_information(g, g) == 0.0
    assert variation_of_information(g, np.array([5, 5, 9, 1, 1, 1])) == 0.0


def test_vi_is_symmetric_and_bounded():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.integers(0, 4, 50), rng.integers(0, 7, 50)
        vab = variation_of_information(a, b)
        assert vab == pytest.approx(variation_of_information(b, a))
        assert 0 < vab <= np.log(50)


def test_vi_known_values():
    # two independent balanced bisections: VI = 2 log 2
    assert variation_of_information([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(2 * np.log(2))
    # one group vs all singletons: VI = log r
    assert variation_of_information(np.zeros(8), np.arange(8)) == pytest.approx(np.log(8))
    with pytest.raises(ValueError, match="equal length"):
        variation_of_information([0, 1], [0, 1, 2])


def test_random_grouping_has_exactly_k_groups():
    rng = np.random.default_rng(1)
    for k in (1, 3, 24):
        assert np.unique(random_grouping(24, k, rng=rng)).size == k
    with pytest.raises(ValueError):
        random_grouping(5, 6, rng=rng)


def test_vi_difference():
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 5, 200)
    # the truth itself is far more informative than a random grouping of the same size
    assert vi_difference(np.tile(truth, (4, 1)), truth, rng=rng) > 1.0
    # a random grouping is, on average, no better than random
    noise = np.array([rng.integers(0, 5, 200) for _ in range(50)])
    assert abs(vi_difference(noise, truth, rng=rng)) < 0.1
    assert vi_difference(truth, truth, rng=rng) > 1.0  # a single grouping works too


def test_mean_absolute_error():
    assert mean_absolute_error([0.1, 0.5], [0.2, 0.3]) == pytest.approx(0.15)
    with pytest.raises(ValueError, match="shapes differ"):
        mean_absolute_error([0.1], [0.1, 0.2])
