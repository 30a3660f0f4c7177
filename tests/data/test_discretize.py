"""MDL discretization (Fayyad & Irani 1993) and image downsampling."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bnstudy.data.discretize import MDLDiscretizer, imresize_bicubic, pool_images


def _ent(counts: list[int]) -> float:
    """Class entropy in bits, written out plainly (independent of the library's vectorized one)."""
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c > 0)


def _mdlp_by_hand(left: list[int], right: list[int]) -> tuple[float, float]:
    """Gain and MDLP threshold of one binary cut, straight from Fayyad & Irani (1993)."""
    total = [a + b for a, b in zip(left, right, strict=True)]
    n, n1, n2 = sum(total), sum(left), sum(right)
    gain = _ent(total) - (n1 / n * _ent(left) + n2 / n * _ent(right))
    k, k1, k2 = (sum(c > 0 for c in counts) for counts in (total, left, right))
    delta = math.log2(3**k - 2) - (k * _ent(total) - k1 * _ent(left) - k2 * _ent(right))
    return gain, math.log2(n - 1) / n + delta / n


def _from_counts(hist: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Samples with value i and the class counts hist[i]."""
    x = np.concatenate([np.full(sum(row), i, dtype=float) for i, row in enumerate(hist)])
    y = np.concatenate([np.repeat(np.arange(len(row)), row) for row in hist])
    return x[:, None], y


def test_two_blocks_give_one_cut_at_the_boundary():
    x = np.tile(np.arange(1, 9), 5).astype(float)[:, None]
    y = (x[:, 0] > 4).astype(np.int64)
    mdl = MDLDiscretizer().fit(x, y)
    assert len(mdl.cut_points_) == 1
    np.testing.assert_array_equal(mdl.cut_points_[0], [4.5])
    np.testing.assert_array_equal(mdl.n_states_, [2])
    np.testing.assert_array_equal(mdl.transform(x)[:, 0], (x[:, 0] > 4.5).astype(int))


def test_three_blocks_give_cuts_at_both_boundaries():
    x = np.tile(np.arange(12), 6).astype(float)
    y = np.digitize(x, [4, 8])  # classes 0 (0..3), 1 (4..7), 2 (8..11)
    mdl = MDLDiscretizer().fit(x[:, None], y)
    np.testing.assert_array_equal(mdl.cut_points_[0], [3.5, 7.5])
    np.testing.assert_array_equal(mdl.n_states_, [3])
    # the order of the rows does not matter
    perm = np.random.default_rng(0).permutation(len(x))
    shuffled = MDLDiscretizer().fit(x[perm, None], y[perm])
    np.testing.assert_array_equal(shuffled.cut_points_[0], [3.5, 7.5])


def test_pure_class_feature_has_one_state():
    x = np.arange(50, dtype=float)[:, None]
    mdl = MDLDiscretizer().fit(x, np.zeros(50, dtype=np.int64))
    assert mdl.cut_points_[0].size == 0
    np.testing.assert_array_equal(mdl.n_states_, [1])
    np.testing.assert_array_equal(mdl.transform(x), np.zeros((50, 1), dtype=np.int64))


def test_constant_feature_has_one_state():
    mdl = MDLDiscretizer().fit(np.ones((10, 1)), np.arange(10) % 2)
    np.testing.assert_array_equal(mdl.n_states_, [1])


def test_noise_with_few_samples_is_not_cut():
    rng = np.random.default_rng(0)
    x = np.column_stack([np.arange(12.0), rng.normal(size=12), rng.normal(size=12)])
    y = np.array([0, 1] * 6)  # alternating classes along the first feature
    mdl = MDLDiscretizer().fit(x, y)
    np.testing.assert_array_equal(mdl.n_states_, [1, 1, 1])


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ([7, 1], [1, 7]),  # gain 0.456 > threshold 0.431: accepted
        ([6, 1], [1, 6]),  # gain 0.408 < threshold 0.491: rejected
        ([12, 3], [3, 12]),  # gain 0.278 < threshold 0.285: rejected, just
        ([20, 2], [2, 20]),
        # accepted only because the MDLP uses log2(N - 1), not log2(N): 0.722 > 0.673 (N = 5)
        ([0, 1], [4, 0]),
        ([1, 4], [4, 0]),  # 0.590 > 0.585; with log2(N) the threshold would be 0.604
        ([8, 2], [0, 3]),
        ([4, 0], [1, 1]),
    ],
)
def test_single_candidate_follows_the_mdlp_by_hand(left, right):
    # Two distinct values: the only candidate cut is 0.5, so the outcome is the MDLP decision.
    x, y = _from_counts([left, right])
    gain, threshold = _mdlp_by_hand(left, right)
    mdl = MDLDiscretizer().fit(x, y)
    expected = [0.5] if gain > threshold else []
    np.testing.assert_array_equal(mdl.cut_points_[0], expected)


def test_hand_cases_cover_both_outcomes():
    decisions = {g > t for g, t in (_mdlp_by_hand([7, 1], [1, 7]), _mdlp_by_hand([6, 1], [1, 6]))}
    assert decisions == {True, False}


def test_best_cut_rejected_but_other_cut_accepted():
    # Class counts per value. The minimal-entropy cut fails the MDLP, the cut at 0.5 passes it.
    hist = [[0, 5, 0], [0, 0, 5], [1, 4, 2], [5, 0, 5]]
    x, y = _from_counts(hist)
    by_hand = {}
    for j in range(1, 4):
        left = np.sum(hist[:j], axis=0).tolist()
        right = np.sum(hist[j:], axis=0).tolist()
        n1, n2 = sum(left), sum(right)
        entropy = (n1 * _ent(left) + n2 * _ent(right)) / (n1 + n2)
        by_hand[j - 0.5] = (entropy, *_mdlp_by_hand(left, right))
    best = min(by_hand, key=lambda cut: by_hand[cut][0])
    assert best != 0.5 and by_hand[best][1] <= by_hand[best][2]  # best cut rejected
    assert by_hand[0.5][1] > by_hand[0.5][2]  # the cut at 0.5 is accepted

    np.testing.assert_array_equal(MDLDiscretizer().fit(x, y).n_states_, [1])
    accepted = MDLDiscretizer(cut_selection="best_accepted").fit(x, y)
    assert 0.5 in accepted.cut_points_[0]


def test_transform_is_monotone_in_range_and_fit_on_train_only():
    rng = np.random.default_rng(2)
    n = 600
    x = rng.normal(size=(n, 2))
    y = (x[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(np.int64) + (x[:, 0] > 1)
    mdl = MDLDiscretizer().fit(x, y)
    assert mdl.n_states_[0] >= 3
    grid = np.linspace(-10, 10, 2001)
    states = mdl.transform(np.column_stack([grid, grid]))
    assert states.dtype == np.int64
    assert np.all(np.diff(states, axis=0) >= 0)
    for j in range(2):
        assert states[:, j].min() == 0 and states[:, j].max() == mdl.n_states_[j] - 1
    # values outside the training range go to the end bins
    outside = mdl.transform(np.array([[-1e6, -1e6], [1e6, 1e6]]))
    np.testing.assert_array_equal(outside, [[0, 0], mdl.n_states_ - 1])
    # a value equal to a cut goes to the upper bin
    cut = mdl.cut_points_[0][0]
    assert mdl.transform(np.array([[cut, 0.0]]))[0, 0] == 1
    # every training value is strictly inside its bin (cuts are midpoints)
    assert not np.isin(x[:, 0], mdl.cut_points_[0]).any()


def test_cut_points_are_midpoints_and_states_consistent():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 30, size=(400, 4)).astype(float)
    y = (x[:, 0] // 10).astype(np.int64)
    mdl = MDLDiscretizer().fit(x, y)
    np.testing.assert_array_equal(mdl.n_states_, [len(c) + 1 for c in mdl.cut_points_])
    for j, cuts in enumerate(mdl.cut_points_):
        assert np.all(np.diff(cuts) > 0)
        values = np.unique(x[:, j])
        midpoints = (values[:-1] + values[1:]) / 2
        assert np.isin(cuts, midpoints).all()
    np.testing.assert_array_equal(mdl.cut_points_[0], [9.5, 19.5])


def test_bad_input_raises():
    with pytest.raises(ValueError, match="2-D"):
        MDLDiscretizer().fit(np.arange(5.0), np.zeros(5))
    with pytest.raises(ValueError, match="NaN"):
        MDLDiscretizer().fit(np.array([[np.nan], [1.0]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="y must have shape"):
        MDLDiscretizer().fit(np.zeros((4, 1)), np.zeros(3))
    with pytest.raises(ValueError, match="cut_selection"):
        MDLDiscretizer(cut_selection="worst").fit(np.zeros((4, 1)), np.zeros(4))
    with pytest.raises(ValueError, match="not fitted"):
        MDLDiscretizer().transform(np.zeros((2, 1)))
    mdl = MDLDiscretizer().fit(np.zeros((4, 2)), np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="3 features"):
        mdl.transform(np.zeros((2, 3)))


def test_fit_transform_equals_fit_then_transform():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 3))
    y = (x[:, 1] > 0.2).astype(int)
    np.testing.assert_array_equal(
        MDLDiscretizer().fit_transform(x, y), MDLDiscretizer().fit(x, y).transform(x)
    )


def test_pool_images_by_hand():
    images = np.arange(2 * 4 * 6).reshape(2, 4, 6).astype(np.uint8)
    pooled = pool_images(images)
    assert pooled.shape == (2, 2, 3)
    assert pooled.dtype == np.float64
    # block (row 0, col 1) of image 0 holds 2, 3, 8, 9
    assert pooled[0, 0, 1] == (2 + 3 + 8 + 9) / 4
    expected = images.reshape(2, 2, 2, 3, 2).astype(float).mean(axis=(2, 4))
    np.testing.assert_array_equal(pooled, expected)
    np.testing.assert_array_equal(pool_images(images, factor=1), images.astype(float))


def test_pool_images_rejects_bad_shapes():
    with pytest.raises(ValueError, match="not divisible"):
        pool_images(np.zeros((1, 5, 4)))
    with pytest.raises(ValueError, match="not divisible"):
        pool_images(np.zeros((1, 4, 6)), factor=4)
    with pytest.raises(ValueError, match=r"\(n, H, W\)"):
        pool_images(np.zeros((4, 4)))


def test_imresize_bicubic_kernel_and_constants():
    # MATLAB's antialiased bicubic kernel for scale 1/2: 0.5 * cubic(0.5 * d), d = +-0.5 .. +-3.5
    half = [0.43359375, 0.11328125, -0.03515625, -0.01171875]
    kernel = np.array(half[::-1] + half)
    assert kernel.sum() == pytest.approx(1.0)
    impulse = np.zeros((1, 28, 28))
    impulse[0, 13, 13] = 1.0
    out = imresize_bicubic(impulse)
    assert out.shape == (1, 14, 14)
    # output pixel i samples input coordinate 2i + 0.5 (0-based); input 13 is at distance
    # d = |2i + 0.5 - 13| and gets weight 0.5 * cubic(0.5 * d) in each direction
    for i in range(14):
        for j in range(14):
            wi = 0.5 * _keys(0.5 * abs(2 * i + 0.5 - 13))
            wj = 0.5 * _keys(0.5 * abs(2 * j + 0.5 - 13))
            assert out[0, i, j] == pytest.approx(wi * wj, abs=1e-12)
    const = np.full((3, 28, 28), 7.0)
    np.testing.assert_allclose(imresize_bicubic(const), 7.0, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="not divisible"):
        imresize_bicubic(np.zeros((1, 27, 28)))


def _keys(d: float) -> float:
    """Keys' cubic kernel (a = -0.5)."""
    d = abs(d)
    if d <= 1:
        return 1.5 * d**3 - 2.5 * d**2 + 1
    if d <= 2:
        return -0.5 * d**3 + 2.5 * d**2 - 4 * d + 2
    return 0.0
