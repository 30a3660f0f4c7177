"""PCD against the exact MLE and the true parameters; oracle MLE."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.mrf import (
    PersistentContrastiveDivergence,
    binary_tree,
    exact_mle,
    oracle_mle,
    pcd_mle,
    sample,
    sample_tree,
    tree_mle,
)


@pytest.fixture(scope="module")
def grid_data():
    from bnstudy.mrf import grid

    g = grid(3, 3)
    rng = np.random.default_rng(11)
    theta = rng.uniform(0.2, 0.85, g.n_edges)
    X = sample(g, theta, 5000, rng=rng)
    return g, theta, X


@pytest.mark.slow
def test_pcd_recovers_known_parameters(grid_data):
    """3x3 grid, n = 5000: PCD within 0.01 of the exact MLE and within 0.03 of the truth.

    The MLE's own sampling error is about sqrt(theta (1 - theta) / n) ~ 0.007 per edge.
    """
    g, theta, X = grid_data
    est = PersistentContrastiveDivergence(g).fit(X, rng=np.random.default_rng(0))
    exact = exact_mle(g, X)
    assert np.abs(est.theta_ - exact).max() < 0.01
    assert np.abs(est.theta_ - theta).max() < 0.03
    assert est.n_iter_ == 1000
    assert est.particles_.shape == (9, 500)
    assert est.gradient_norm_trace_[-50:].mean() < est.gradient_norm_trace_[:5].mean()


@pytest.mark.slow
def test_tied_pcd_matches_tied_exact_mle(grid_data):
    g, _, X = grid_data
    groups = np.arange(g.n_edges) % 3
    tied = pcd_mle(g, X, rng=np.random.default_rng(1), groups=groups)
    exact = exact_mle(g, X, groups=groups)
    assert np.abs(tied - exact).max() < 0.01
    assert np.unique(tied).size == 3
    # oracle_mle on a graph with cycles is tied PCD
    oracle = oracle_mle(g, X, groups, rng=np.random.default_rng(1))
    np.testing.assert_allclose(oracle, tied)


def test_oracle_mle_on_tree_is_pooled_closed_form():
    g = binary_tree(5)
    rng = np.random.default_rng(2)
    groups = rng.integers(0, 3, g.n_edges)
    theta = np.array([0.2, 0.5, 0.9])[groups]
    X = sample_tree(g, theta, 300, rng=rng)
    oracle = oracle_mle(g, X, groups)
    np.testing.assert_allclose(oracle, tree_mle(g, X, groups=groups))
    assert np.abs(oracle - theta).max() < 0.05


def test_pcd_warm_start_keeps_particles(grid_data):
    g, _, X = grid_data
    est = PersistentContrastiveDivergence(g, n_iter=20, warm_start=True)
    est.fit(X, rng=np.random.default_rng(3))
    first = est.particles_
    est.fit(X, rng=np.random.default_rng(4), groups=np.zeros(g.n_edges, dtype=int))
    assert est.particles_ is first
    assert est.group_theta_.shape == (1,)


def test_pcd_rejects_bad_input(grid_data):
    g, _, X = grid_data
    with pytest.raises(ValueError, match="n_iter"):
        PersistentContrastiveDivergence(g, n_iter=0).fit(X, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="groups must have shape"):
        pcd_mle(g, X, rng=np.random.default_rng(0), groups=[0, 1])
    with pytest.raises(ValueError, match="init"):
        pcd_mle(g, X, rng=np.random.default_rng(0), init=np.full(g.n_edges, 1.0))
    with pytest.raises(ValueError, match="needs rng"):
        oracle_mle(g, X, np.zeros(g.n_edges))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 0.0, -0.5])
def test_learning_rate_must_be_finite_and_positive(grid_data, value):
    """Issue 10: pcd_mle(learning_rate=nan) returned NaN estimates."""
    g, _, X = grid_data
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="learning_rate must be a finite number > 0"):
        pcd_mle(g, X, rng=rng, learning_rate=value, n_iter=5)
    with pytest.raises(ValueError, match="learning_rate"):
        PersistentContrastiveDivergence(g, learning_rate=value).fit(X, rng=rng)
    with pytest.raises(ValueError, match="learning_rate"):
        oracle_mle(g, X, np.zeros(g.n_edges), rng=rng, learning_rate=value)
    tree = binary_tree(3)
    Xt = sample_tree(tree, np.full(tree.n_edges, 0.7), 200, rng=rng)
    with pytest.raises(ValueError, match="learning_rate"):  # unused on a tree, still refused
        oracle_mle(tree, Xt, np.zeros(tree.n_edges), learning_rate=value)


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("average_fraction", np.nan, "average_fraction"),
        ("average_fraction", 0.0, "average_fraction"),
        ("average_fraction", 1.5, "average_fraction"),
        ("eps", np.nan, "eps must be"),
        ("eps", np.inf, "eps must be"),
        ("eps", 0.5, "eps must be"),
        ("n_sweeps", 0, "n_sweeps"),
    ],
)
def test_pcd_step_settings_are_checked(grid_data, setting, value, message):
    g, _, X = grid_data
    with pytest.raises(ValueError, match=message):
        pcd_mle(g, X, rng=np.random.default_rng(0), n_iter=5, **{setting: value})


@pytest.mark.parametrize("eps", [np.nan, np.inf, 0.0, 0.7])
def test_tree_mle_eps_is_checked(eps):
    tree = binary_tree(3)
    X = sample_tree(tree, np.full(tree.n_edges, 0.7), 100, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="eps must be a finite number"):
        tree_mle(tree, X, eps=eps)
