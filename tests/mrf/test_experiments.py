"""The MRF paper's experiment runners: replicates, estimators, metrics, the Senate pieces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bnstudy.mrf import binary_tree, grid, log_likelihood, log_pseudo_likelihood, tree_mle
from bnstudy.mrf.metrics import vi_difference
from bnstudy.studies.mrf.experiments import (
    ESTIMATORS,
    SimulatedReplicate,
    fit_estimator,
    heldout_log_likelihood,
    learn_senate_graph,
    load_graph,
    load_replicate,
    load_replicates,
    load_run_arrays,
    run_senate_fit,
    run_simulation_block,
    run_simulation_fit,
    save_graph,
    save_replicate,
    save_replicates,
    simulate_replicate,
    simulation_graph,
    vi_difference_fast,
    write_block,
)

FAST_PCD = {"n_iter": 60, "n_particles": 60, "learning_rate": 1.0, "step_iter": 3}
FAST_SETTINGS = {
    "dp_gibbs_tree": {"n_steps": 4},
    "gibbs_exactl": {"n_steps": 3},
    "gibbs_sba": {"n_steps": 3},
    "mh_auxvar": {
        "n_steps": 2,
        "n_proposals": 2,
        "sigma_q": 0.001,
        "n_phi_steps": 3,
        "particle_sweeps": 2,
        "auxiliary": "exchange",
    },
}


@pytest.fixture(scope="module")
def tree_replicate():
    graph = binary_tree(5)
    rep = simulate_replicate(
        graph, n_groups=4, n_train=200, n_test=50, rng=np.random.default_rng(1)
    )
    return graph, rep


@pytest.fixture(scope="module")
def grid_replicate():
    graph = grid(3, 3)
    rep = simulate_replicate(
        graph, n_groups=3, n_train=150, n_test=40, rng=np.random.default_rng(2)
    )
    return graph, rep


def test_simulation_graph_sizes():
    assert simulation_graph(height=12).n_edges == 8190
    assert simulation_graph(side=30).n_edges == 1740
    with pytest.raises(ValueError, match="exactly one"):
        simulation_graph(height=3, side=3)
    with pytest.raises(ValueError, match="exactly one"):
        simulation_graph()


def test_replicate_shapes_groups_and_nesting(tree_replicate):
    graph, rep = tree_replicate
    assert rep.train.shape == (200, graph.n_nodes) and rep.test.shape == (50, graph.n_nodes)
    assert rep.train.dtype == np.int8 and set(np.unique(rep.train)) <= {0, 1}
    assert rep.groups.shape == rep.theta.shape == (graph.n_edges,)
    assert rep.groups.min() >= 0 and rep.groups.max() < 4
    # edges of one group share one value (Sec. 4: values per group, edges assigned at random)
    for g in np.unique(rep.groups):
        assert np.unique(rep.theta[rep.groups == g]).size == 1
    assert np.array_equal(rep.training_set(80), rep.train[:80])
    with pytest.raises(ValueError, match="not available"):
        rep.training_set(201)


def test_replicates_are_seeded():
    graph = grid(3, 3)
    a, b, c = (
        simulate_replicate(graph, n_groups=3, n_train=30, n_test=10, rng=np.random.default_rng(s))
        for s in (5, 5, 6)
    )
    assert np.array_equal(a.train, b.train) and np.array_equal(a.theta, b.theta)
    assert not np.array_equal(a.theta, c.theta)


def test_replicate_round_trip(tmp_path, grid_replicate):
    _, rep = grid_replicate
    save_replicate(tmp_path / "rep.npz", rep, seed=11)
    back = load_replicate(tmp_path / "rep.npz")
    assert back.n_groups == rep.n_groups
    for name in ("theta", "groups", "train", "test"):
        assert np.array_equal(getattr(back, name), getattr(rep, name))
    assert back.train.dtype == back.test.dtype == np.int8
    # the samples are stored bit-packed: 9 columns in 2 bytes per row
    with np.load(tmp_path / "rep.npz") as npz:
        assert npz["train_bits"].shape == (rep.train.shape[0], 2) and int(npz["n_nodes"]) == 9
    np.savez(tmp_path / "bad.npz", theta=rep.theta)
    with pytest.raises(ValueError, match="missing key"):
        load_replicate(tmp_path / "bad.npz")


def test_fit_estimator_rejects_bad_arguments(tree_replicate):
    graph, rep = tree_replicate
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="unknown estimator 'bayes'"):
        fit_estimator("bayes", graph, rep.train, rng=rng)
    with pytest.raises(ValueError, match="true groups"):
        fit_estimator("oracle", graph, rep.train, rng=rng)
    with pytest.raises(ValueError, match="burn_in_fraction"):
        fit_estimator("mle", graph, rep.train, rng=rng, burn_in_fraction=1.0)
    with pytest.raises(ValueError, match="n_steps"):
        fit_estimator("dp_gibbs_tree", graph, rep.train, rng=rng, settings={})


def test_tree_mle_and_oracle_are_closed_form(tree_replicate):
    graph, rep = tree_replicate
    X = rep.training_set(100)
    rng = np.random.default_rng(0)
    mle = fit_estimator("mle", graph, X, rng=rng)
    assert np.allclose(mle.theta, tree_mle(graph, X)) and mle.result is None
    oracle = fit_estimator("oracle", graph, X, rng=rng, groups=rep.groups)
    assert np.allclose(oracle.theta, tree_mle(graph, X, groups=rep.groups))


@pytest.mark.parametrize("estimator", [e for e in ESTIMATORS if e != "dp_gibbs_tree"])
def test_every_grid_estimator_runs_and_is_measured(grid_replicate, estimator):
    graph, rep = grid_replicate
    mle = np.full(graph.n_edges, 0.6)
    row, arrays = run_simulation_fit(
        estimator,
        graph,
        rep,
        100,
        rng=np.random.default_rng(3),
        settings=FAST_SETTINGS.get(estimator),
        pcd=FAST_PCD,
        mle=mle if estimator not in ("mle", "oracle") else None,
    )
    assert row["n_train"] == 100 and row["n_test"] == 40 and row["n_edges"] == 12
    assert 0.0 <= row["mae"] <= 1.0
    assert row["test_metric"] == "loglik" and row["test_loglik"] < 0
    assert row["test_loglik_per_sample"] == pytest.approx(row["test_loglik"] / 40)
    assert arrays["theta"].shape == (graph.n_edges,)
    if estimator in ("mle", "oracle"):
        assert np.isnan(row["vi_difference"]) and row["n_steps"] == 0
    else:
        assert row["n_steps"] == FAST_SETTINGS[estimator]["n_steps"]
        assert np.isfinite(row["vi_difference"]) and row["n_groups"] >= 1
        assert arrays["n_groups_trace"].shape == (row["n_steps"],)
        # the samplers start from the MLE they are given (Algorithms 1-2, line 1)
        assert np.allclose(arrays["mle"], mle)


def test_mh_auxvar_records_acceptance(grid_replicate):
    graph, rep = grid_replicate
    row, _ = run_simulation_fit(
        "mh_auxvar",
        graph,
        rep,
        50,
        rng=np.random.default_rng(4),
        settings=FAST_SETTINGS["mh_auxvar"],
        pcd=FAST_PCD,
    )
    assert 0.0 <= row["c_acceptance"] <= 1.0 and 0.0 <= row["phi_acceptance"] <= 1.0


def test_runs_are_reproducible(tree_replicate):
    graph, rep = tree_replicate
    rows = [
        run_simulation_fit(
            "dp_gibbs_tree",
            graph,
            rep,
            100,
            rng=np.random.default_rng(9),
            settings={"n_steps": 5},
            burn_in_fraction=0.4,
        )[0]
        for _ in range(2)
    ]
    for key in ("mae", "test_loglik", "vi_difference", "n_groups", "n_groups_final"):
        assert rows[0][key] == rows[1][key]
    assert rows[0]["n_steps"] == 5


def test_bayesian_tree_estimator_beats_the_mle_with_few_groups():
    """The paper's "blessing of abstraction" (Sec. 4.1) on a tree with 3 well-separated groups."""
    graph = binary_tree(8)
    rng = np.random.default_rng(21)
    wins = 0
    for _ in range(3):
        rep = simulate_replicate(graph, n_groups=3, n_train=100, n_test=100, rng=rng)
        mle, _ = run_simulation_fit("mle", graph, rep, 100, rng=rng)
        bayes, _ = run_simulation_fit(
            "dp_gibbs_tree", graph, rep, 100, rng=rng, settings={"n_steps": 30}
        )
        oracle, _ = run_simulation_fit("oracle", graph, rep, 100, rng=rng)
        assert oracle["mae"] <= bayes["mae"] + 1e-3
        wins += bayes["mae"] < mle["mae"] and bayes["test_loglik"] > mle["test_loglik"]
    assert wins == 3


def test_heldout_likelihood_is_exact_where_tractable():
    rng = np.random.default_rng(0)
    for graph in (binary_tree(4), grid(3, 3)):
        theta = rng.uniform(0.1, 0.9, graph.n_edges)
        X = rng.integers(0, 2, size=(20, graph.n_nodes))
        value, kind = heldout_log_likelihood(graph, theta, X)
        assert kind == "loglik" and value == pytest.approx(log_likelihood(graph, theta, X))
    big = grid(5, 5)
    theta = rng.uniform(0.1, 0.9, big.n_edges)
    X = rng.integers(0, 2, size=(20, big.n_nodes))
    value, kind = heldout_log_likelihood(big, theta, X)
    assert kind == "pseudo_loglik" and value == pytest.approx(log_pseudo_likelihood(big, theta, X))


def test_graph_round_trip(tmp_path):
    graph = grid(2, 3)
    save_graph(tmp_path / "g.npz", graph)
    back = load_graph(tmp_path / "g.npz")
    assert back.n_nodes == 6 and np.array_equal(back.edges, graph.edges) and back.name == graph.name


@pytest.fixture(scope="module")
def votes():
    """Synthetic roll calls over {-1, 1}: 12 'senators' in two blocs that vote together."""
    rng = np.random.default_rng(5)
    bloc = rng.choice([-1, 1], size=(160, 2))
    members = np.repeat(bloc, 6, axis=1)
    flip = rng.random(members.shape) < 0.15
    return np.where(flip, -members, members).astype(np.int8)


def test_senate_graph_and_fits(votes):
    graph = learn_senate_graph(votes[:100], target_edges=15)
    assert graph.n_nodes == 12 and abs(graph.n_edges - 15) <= 3
    train, test = votes[:100], votes[100:]
    mle, arrays = run_senate_fit(
        "mle", graph, train, test, rng=np.random.default_rng(0), pcd=FAST_PCD
    )
    sba, _ = run_senate_fit(
        "gibbs_sba",
        graph,
        train,
        test,
        rng=np.random.default_rng(1),
        settings={"n_steps": 5},
        pcd=FAST_PCD,
        mle=arrays["theta"],
    )
    for row in (mle, sba):
        assert row["n_train"] == 100 and row["n_test"] == 60 and row["n_edges"] == graph.n_edges
        assert row["lpl_train"] < 0 and row["lpl_test"] < 0
    assert np.isnan(mle["n_groups"]) and sba["n_steps"] == 5 and sba["n_groups"] >= 1
    assert np.isnan(sba["vi_difference"])  # no true grouping on real data
    with pytest.raises(ValueError, match="mle and gibbs_sba"):
        run_senate_fit("oracle", graph, train, test, rng=np.random.default_rng(0))


# ---------------------------------------------------------------- blocks of replicates


@pytest.fixture(scope="module")
def tree_block():
    graph = binary_tree(5)
    reps = {
        r: simulate_replicate(
            graph, n_groups=4, n_train=120, n_test=30, rng=np.random.default_rng(10 + r)
        )
        for r in (3, 4, 5)
    }
    seeds = {(n, r): 1000 * n + r for n in (60, 120) for r in reps}
    return graph, reps, seeds


@pytest.mark.parametrize("estimator", ["mle", "oracle", "dp_gibbs_tree"])
def test_a_block_gives_each_run_its_own_result(tree_block, estimator):
    """Grouping replicates in one job changes no run: each equals its run alone, same seed."""
    graph, reps, seeds = tree_block
    opts = {"settings": {"n_steps": 12}, "burn_in_fraction": 0.25}
    runs = run_simulation_block(
        estimator, graph, reps, [60, 120], seeds, chains_per_batch=2, **opts
    )
    assert [(r["n"], r["rep"]) for r, _ in runs] == [(n, r) for n in (60, 120) for r in reps]
    for row, arrays in runs:
        alone, alone_arrays = run_simulation_fit(
            estimator,
            graph,
            reps[row["rep"]],
            row["n"],
            rng=np.random.default_rng(seeds[row["n"], row["rep"]]),
            **opts,
        )
        np.testing.assert_array_equal(arrays["theta"], alone_arrays["theta"])
        for key in ("mae", "test_loglik", "vi_difference", "n_groups", "n_steps"):
            assert row[key] == alone[key] or (np.isnan(row[key]) and np.isnan(alone[key]))
    with pytest.raises(ValueError, match="no seed"):
        run_simulation_block(estimator, graph, reps, [99], seeds, **opts)


def test_block_files_round_trip(tmp_path, tree_block):
    graph, reps, seeds = tree_block
    save_replicates(tmp_path / "data.npz", reps, {r: 7 + r for r in reps})
    back = load_replicates(tmp_path / "data.npz")
    assert sorted(back) == sorted(reps)
    for r, rep in reps.items():
        np.testing.assert_array_equal(back[r].train, rep.train)
        np.testing.assert_array_equal(back[r].groups, rep.groups)
    runs = run_simulation_block("mle", graph, back, [60, 120], seeds)
    write_block(
        tmp_path / "m.csv",
        tmp_path / "e.npz",
        {"simulation": "tree", "estimator": "mle"},
        runs,
        seeds,
    )
    frame = pd.read_csv(tmp_path / "m.csv")
    assert list(frame.columns[:4]) == ["simulation", "estimator", "n", "rep"]
    provenance = ["bnstudy_version", "git_commit", "git_dirty", "code_hash", "seed"]
    assert list(frame.columns[-5:]) == provenance
    assert frame["seed"].tolist() == [
        seeds[n, r] for n, r in zip(frame["n"], frame["rep"], strict=True)
    ]
    np.testing.assert_array_equal(
        load_run_arrays(tmp_path / "e.npz", 120, 4)["theta"], runs[4][1]["theta"]
    )
    with pytest.raises(ValueError, match="n=1, rep=4"):
        load_run_arrays(tmp_path / "e.npz", 1, 4)
    np.savez(tmp_path / "bad.npz", x=np.zeros(2))
    with pytest.raises(ValueError, match="no replicates"):
        load_replicates(tmp_path / "bad.npz")


def test_fast_vi_difference_equals_the_reference():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 6, 300)
    gs = np.stack([rng.integers(0, 2 + t % 5, 300) for t in range(40)])
    gs[0] = 0  # one group
    gs[1] = truth  # the truth itself
    ref = vi_difference(gs, truth, rng=np.random.default_rng(8))
    fast = vi_difference_fast(gs, truth, rng=np.random.default_rng(8))
    assert fast == ref  # same draws, same sums in the same order
    assert vi_difference_fast(truth, truth, rng=np.random.default_rng(1)) > 0


@pytest.mark.parametrize(
    "relabel",
    [
        lambda g: g,  # every row already 0 .. k - 1: no numpy.unique
        lambda g: g * 3 + 1,  # gaps and no 0: each row relabelled
        lambda g: np.where(np.arange(g.shape[0])[:, None] % 2 == 0, g, g + 5),  # mixed rows
        lambda g: g.astype(np.int32) - 2,  # negative labels
        lambda g: g.astype(np.float64),  # labels as floats: relabelled
    ],
)
def test_fast_vi_difference_equals_the_reference_for_any_labels(relabel):
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 5, 200)
    gs = relabel(np.stack([rng.integers(0, 1 + t % 7, 200) for t in range(30)]))
    ref = vi_difference(gs, truth, rng=np.random.default_rng(9))
    assert vi_difference_fast(gs, truth, rng=np.random.default_rng(9)) == ref


def test_replicate_files_reject_samples_that_are_not_binary(tmp_path, grid_replicate):
    _, rep = grid_replicate
    bad = SimulatedReplicate(rep.theta, rep.groups, rep.n_groups, rep.train * 2, rep.test)
    with pytest.raises(ValueError, match=r"train: samples must be 0 or 1, got values in \[0, 2\]"):
        save_replicate(tmp_path / "rep.npz", bad)
    wide = SimulatedReplicate(
        rep.theta, rep.groups, rep.n_groups, rep.train.astype(np.int64), rep.test
    )
    with pytest.raises(ValueError, match="train: expected int8 samples with 9 columns, got int64"):
        save_replicate(tmp_path / "rep.npz", wide)
    assert not (tmp_path / "rep.npz").exists()
