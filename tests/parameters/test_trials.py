"""EM trial batches and the EM paper's tables: determinism, bookkeeping and the Pearson statistic."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bnstudy.networks import forward_sample
from bnstudy.studies.em.tables import error_metric_table, mini_adapt_table, sharing_table
from bnstudy.studies.em.trials import (
    EMSettings,
    choose_hidden,
    run_em_trials,
    sharing_correlations,
    summarize_trials,
)

SETTINGS = EMSettings(
    tol=1e-3, min_iter=3, max_iter=20, pseudo_count=1.0, error_metric="l2_per_row_sum"
)


@pytest.fixture(scope="module")
def small_trials(small_bn):
    data = forward_sample(small_bn, 300, rng=np.random.default_rng(3))
    return run_em_trials(
        small_bn, data, ["H"], [[], ["A", "A2"]], n_trials=3, seed=11, settings=SETTINGS
    )


def test_one_row_and_one_trace_per_trial(small_trials):
    trials, traces = small_trials
    assert len(trials) == 6
    assert trials["n_shared"].tolist() == [0, 0, 0, 2, 2, 2]
    assert traces["loglik"].shape == traces["error"].shape == (6, 21)
    # the trace ends where the trial ended: n_iter_ + 1 finite entries, the last = the final ll
    for row, ll in zip(trials.itertuples(), traces["loglik"], strict=True):
        finite = ll[np.isfinite(ll)]
        assert len(finite) == row.iterations + 1
        assert finite[-1] == pytest.approx(row.loglik)
    assert set(trials.columns) >= {"error_l1", "error_l2_global", "error_l2_per_row_sum"}
    assert np.allclose(trials["error"], trials["error_l2_per_row_sum"])


def test_trials_are_reproducible_and_distinct(small_bn, small_trials):
    trials, _ = small_trials
    data = forward_sample(small_bn, 300, rng=np.random.default_rng(3))
    again, _ = run_em_trials(
        small_bn, data, ["H"], [[], ["A", "A2"]], n_trials=3, seed=11, settings=SETTINGS
    )
    pd.testing.assert_frame_equal(
        trials.drop(columns="seconds"), again.drop(columns="seconds"), check_exact=True
    )
    assert trials.loc[trials.n_shared == 0, "loglik"].nunique() > 1  # random starts differ


def test_summary_and_pearson_by_hand():
    trials = pd.DataFrame(
        {
            "n_shared": [0, 0, 2, 2, 4, 4],
            "iterations": [3, 5, 6, 8, 9, 11],
            "loglik": [-10.0, -12.0, -9.0, -13.0, -8.0, -14.0],
            "error": [1.0, 1.0, 2.0, 2.0, 1.0, 1.0],
        }
    )
    levels = summarize_trials(trials, ["n_shared"])
    assert levels["iterations_mean"].tolist() == [4.0, 7.0, 10.0]
    assert levels["loglik_std"].tolist() == pytest.approx(np.sqrt([2.0, 8.0, 18.0]))
    r = sharing_correlations(levels.assign(net="x"), ["net"]).iloc[0]
    assert r["r_iterations_mean"] == pytest.approx(1.0)
    assert r["r_loglik_mean"] != r["r_loglik_mean"]  # constant mean -11: undefined, NaN
    assert r["r_loglik_std"] == pytest.approx(np.corrcoef([0, 2, 4], np.sqrt([2, 8, 18]))[0, 1])
    assert r["r_error_mean"] == pytest.approx(0.0)


def test_sharing_table_puts_the_paper_beside_ours():
    rng = np.random.default_rng(0)
    rows = [
        {
            "network": net,
            "n_samples": n,
            "n_shared": k,
            "iterations": rng.integers(3, 9),
            "loglik": rng.normal(),
            "error": rng.normal(),
        }
        for net in ("pigs", "adapt")
        for n in (25, 50)
        for k in (0, 10, 20, 30)
        for _ in range(3)
    ]
    paper = pd.DataFrame(
        {
            "paper_network": ["Pigs", "Pigs", "ADAPT T1"],
            "n": [25, 50, 25],
            **{
                c: [0.5, -0.5, 0.1]
                for c in [
                    f"r_{m}_{s}" for m in ("iterations", "loglik", "error") for s in ("mean", "std")
                ]
            },
        }
    )
    levels, table = sharing_table(pd.DataFrame(rows), paper)
    assert len(levels) == 16  # the no-sharing level is reported ...
    # ... but r runs over the sharing levels only, as the paper's gradual sharing
    assert table["levels"].dropna().eq(3).all()
    pigs_25 = levels[(levels["network"] == "pigs") & (levels["n_samples"] == 25)]
    shared = pigs_25[pigs_25["n_shared"] > 0]
    got = table[(table["network"] == "pigs") & (table["n"] == 25)]["r_error_mean"].item()
    assert got == pytest.approx(np.corrcoef(shared["n_shared"], shared["error_mean"])[0, 1])
    assert got != pytest.approx(np.corrcoef(pigs_25["n_shared"], pigs_25["error_mean"])[0, 1])
    pigs = table[table["network"] == "pigs"].set_index("n")
    assert pigs.loc[25, "r_error_mean_paper"] == 0.5 and pigs.loc[50, "r_loglik_std_paper"] == -0.5
    assert table[table["network"] == "adapt"]["r_error_mean_paper"].isna().all()
    assert table[table["network"] == "adapt"]["same_sign_as_paper"].eq("").all()
    assert pigs.loc[25, "same_sign_as_paper"].endswith("/6")
    hidden_row = table[table["paper_network"] == "ADAPT T1"]
    assert hidden_row["note"].item() == "network not public"


def test_mini_adapt_and_error_metric_tables():
    trials = pd.DataFrame(
        {
            "sharing": ["none"] * 4 + ["SB"] * 4,
            "observables": ["O_C", "O_C", "O_P", "O_P"] * 2,
            "iterations": [3, 3, 10, 12] * 2,
            "loglik": [-5.0, -5.0, -4.0, -4.5] * 2,
            "error": [16.0, 16.0, 30.0, 40.0] * 2,
            "error_l1": [23.0, 23.0, 40.0, 50.0] * 2,
            "error_l2_per_row_sum": [16.0, 16.0, 30.0, 40.0] * 2,
        }
    )
    stats = [f"{m}_{s}" for m in ("error", "loglik", "iterations") for s in ("mean", "std")]
    paper = pd.DataFrame(
        {"sharing": ["none", "none"], "observables": ["O_C", "O_P"]}
        | {c: [np.nan, np.nan] for c in stats}
    ).assign(error_mean=[16.325, 48.38])
    table = mini_adapt_table(trials, paper)
    assert table["sharing"].tolist() == ["none", "none", "SB", "SB"]
    assert table.loc[1, "error_mean"] == 35.0 and table.loc[1, "error_mean_paper"] == 48.38
    metrics = error_metric_table(trials, 16.325)
    best = metrics[metrics["closest_to_paper"]]["metric"].unique().tolist()
    assert best == ["l2_per_row_sum"]


def test_choose_hidden(small_bn):
    assert choose_hidden(small_bn, 1) == ["A", "A2"]
    with pytest.raises(ValueError, match="rank 5 out of range"):
        choose_hidden(small_bn, 5)
    with pytest.raises(ValueError, match="cannot draw 3 hidden nodes"):
        choose_hidden(small_bn, 1, count=3, rng=np.random.default_rng(0))
    assert len(choose_hidden(small_bn, 1, count=1, rng=np.random.default_rng(0))) == 1


def test_em_settings_from_the_config_block():
    block = {"networks": ["pigs"], "sharing": {}, **SETTINGS.as_dict()}
    settings = EMSettings.from_config(block)
    assert settings == SETTINGS
    assert EMSettings.keys() == ("tol", "min_iter", "max_iter", "pseudo_count", "error_metric")
    em = settings.estimator([["A", "A2"]])
    assert (em.tol, em.min_iter, em.max_iter, em.pseudo_count) == (1e-3, 3, 20, 1.0)
    assert em.sharing == [["A", "A2"]]
    with pytest.raises(ValueError, match="lack em.max_iter, em.error_metric"):
        EMSettings.from_config({"tol": 1e-3, "min_iter": 3, "pseudo_count": 1.0})
    with pytest.raises(ValueError, match="em.error_metric is 'l3'"):
        EMSettings.from_config({**SETTINGS.as_dict(), "error_metric": "l3"})


def test_error_metric_setting_picks_the_error_column(small_bn):
    data = forward_sample(small_bn, 100, rng=np.random.default_rng(3))
    l1 = EMSettings(tol=1e-3, min_iter=3, max_iter=5, pseudo_count=1.0, error_metric="l1")
    trials, traces = run_em_trials(small_bn, data, ["H"], [[]], n_trials=2, seed=1, settings=l1)
    assert np.array_equal(trials["error"], trials["error_l1"])
    assert not np.allclose(trials["error"], trials["error_l2_per_row_sum"])
    assert traces["loglik"].shape == (2, 6)  # max_iter + 1 from the settings
