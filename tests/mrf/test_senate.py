"""The Senate graph by L1 logistic neighbourhood selection (the paper's graph is not public)."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.data.build import build_senate
from bnstudy.mrf import gibbs_sba, log_pseudo_likelihood, neighbourhood_selection_graph, pcd_mle


@pytest.fixture(scope="module")
def senate(mirror):
    return build_senate(mirror / "senate" / "s109.rda")


@pytest.fixture(scope="module")
def session1_graph(senate):
    return neighbourhood_selection_graph(senate.votes[1], target_edges=279)


@pytest.mark.slow
def test_session1_graph_has_about_279_edges(senate, session1_graph):
    g = session1_graph
    assert senate.votes[1].shape == (292, 99)
    assert g.n_nodes == 99
    assert abs(g.n_edges - 279) <= 0.1 * 279
    assert not g.is_forest
    # greedy colouring gives independent sets for blocked Gibbs
    assert len(g.colouring) >= 3


def test_senate_gibbs_sba_runs(senate, session1_graph):
    g = session1_graph
    rng = np.random.default_rng(0)
    X1, X2 = senate.votes[1], senate.votes[2]
    mle = pcd_mle(g, X1, rng=rng, n_iter=300)
    res = gibbs_sba(g, X1, n_steps=10, burn_in=2, rng=rng, mle=mle, step_pcd_iter=20)
    assert res.theta_mean.shape == (279,)
    assert np.isfinite(log_pseudo_likelihood(g, res.theta_mean, X2))
