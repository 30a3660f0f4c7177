"""EM claims: an agreeing and a disagreeing case of every claim builder."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bnstudy.studies.claims import read_catalog, tolerance
from bnstudy.studies.em.claims import (
    complete_data_error,
    em_findings,
    error_spread,
    fig2_signs,
    fig3_op_extremes_smaller,
    fig4_ot_middle_vs_ends,
    fig4_ot_outer_apart,
    fig5_error_range,
    fig6_loglik_above,
    mini_adapt_change,
    mini_adapt_largest_change,
    mini_adapt_loglik,
    mini_adapt_minor,
    paper_claims,
    pigs_iteration_signs,
    relative_change,
)
from bnstudy.studies.em.tables import (
    ENDPOINT_COLUMNS,
    REGION_COLUMNS,
    endpoints_table,
    error_regions_table,
)


@pytest.fixture(scope="module")
def catalogs(repo_root):
    path = repo_root / "workflow" / "published" / "claims.tsv"
    return {p: read_catalog(path, p) for p in ("tan", "em", "mrf", "lsbn")}


PAPER_N = (25, 50, 100, 200, 400)


@pytest.fixture(scope="module")
def paper3(repo_root):
    return pd.read_csv(repo_root / "workflow/published/em_table3.tsv", sep="\t", comment="#")


#: adapt's Table 3 row at Fig. 2's sample size: the paper's signs (iterations up, ll down, stds up)
FIG2 = {
    "r_iterations_mean": 0.8,
    "r_loglik_mean": -0.7,
    "r_iterations_std": 0.7,
    "r_loglik_std": 0.8,
    "r_error_std": 0.9,
}


def _table3(ns=PAPER_N, signs=(1, 1, -1, -1, -1), spread=0.5, adapt=None, adapt_n=200):
    rows = [
        {"network": "adapt", "paper_network": "", "n": adapt_n, "levels": 27.0}
        | FIG2
        | (adapt or {})
    ]
    rows += [
        {
            "network": "pigs",
            "paper_network": "Pigs",
            "n": n,
            "r_iterations_mean": 0.8 * s,
            "r_error_std": spread,
        }
        for n, s in zip(ns, signs, strict=False)
    ]
    rows.append(
        {
            "network": "",
            "paper_network": "ADAPT T1",
            "n": 25,
            "r_iterations_mean": -0.9,
            "r_error_std": 0.9,
        }
    )
    return pd.DataFrame(rows)


def _table4(
    ot_std=(7.0, 14.0),
    op_std=(3.7, 3.9),
    ot_iter=(8.6, 6.6),
    ot_error=(33.0, 34.0),
    ot_ll=(-2.5e4, -2.6e4),
    ot_ll_std=(1200.0, 2600.0),
    op_means=((48.0, 48.5), (-2.01e4, -2.01e4), (16.4, 16.0)),
    op_ll_std=(44.0, 63.0),
):
    rows = []
    for sharing, i in (("none", 0), ("SB", 1)):
        rows.append(
            {
                "sharing": sharing,
                "observables": "O_T",
                "error_mean": ot_error[i],
                "error_std": ot_std[i],
                "loglik_mean": ot_ll[i],
                "loglik_std": ot_ll_std[i],
                "iterations_mean": ot_iter[i],
                "iterations_std": 2.0,
            }
        )
        rows.append(
            {
                "sharing": sharing,
                "observables": "O_P",
                "error_mean": op_means[0][i],
                "error_std": op_std[i],
                "loglik_mean": op_means[1][i],
                "loglik_std": op_ll_std[i],
                "iterations_mean": op_means[2][i],
                "iterations_std": 5.0,
            }
        )
    return pd.DataFrame(rows)


def _metrics(mean):
    return pd.DataFrame(
        [
            {"metric": "l1", "sharing": "none", "mean": 23.1, "closest_to_paper": False},
            {"metric": "l2_per_row_sum", "sharing": "none", "mean": mean, "closest_to_paper": True},
            {"metric": "l2_per_row_sum", "sharing": "SB", "mean": 15.0, "closest_to_paper": True},
        ]
    )


def test_error_spread(paper3):
    assert error_spread(_table3(), paper3).verdict == "agrees"
    assert error_spread(_table3(spread=-0.1), paper3).verdict == "disagrees"
    partial = error_spread(_table3(ns=(25, 50)), paper3)
    assert partial.verdict == "partial" and "2 of the paper's 5" in partial.notes


def test_pigs_iteration_signs(paper3):
    assert pigs_iteration_signs(_table3(), paper3).verdict == "agrees"
    assert pigs_iteration_signs(_table3(signs=(1, -1, -1, -1, -1)), paper3).verdict == "disagrees"
    # the case of the old table: 2 of 5 sample sizes with the paper's signs is partial, not agrees
    two = pigs_iteration_signs(_table3(ns=(25, 50)), paper3)
    assert two.verdict == "partial"
    assert two.ours == "+ (n=25) + (n=50)"
    assert pigs_iteration_signs(_table3(ns=(25, 50), signs=(1, -1)), paper3).verdict == (
        "disagrees"
    )


def test_mini_adapt_change():
    t4 = _table4()
    assert mini_adapt_change(t4, "O_T", "error_std", "up").verdict == "agrees"
    assert mini_adapt_change(t4, "O_P", "error_std", "up").verdict == "agrees"
    assert mini_adapt_change(t4, "O_T", "iterations_mean", "down").verdict == "agrees"
    flipped = _table4(ot_std=(14.0, 7.0), op_std=(3.9, 3.7), ot_iter=(6.6, 8.6))
    assert mini_adapt_change(flipped, "O_T", "error_std", "up").verdict == "disagrees"
    assert mini_adapt_change(flipped, "O_P", "error_std", "up").verdict == "disagrees"
    assert mini_adapt_change(flipped, "O_T", "iterations_mean", "down").verdict == "disagrees"
    with pytest.raises(ValueError, match="direction"):
        mini_adapt_change(t4, "O_T", "error_std", "sideways")


def test_relative_change():
    assert relative_change(100.0, 104.0) == pytest.approx(0.04)
    assert relative_change(-100.0, -105.0) == pytest.approx(-0.05)
    assert relative_change(0.0, 0.0) == 0.0
    assert relative_change(0.0, 1.0) == float("inf")


def test_mini_adapt_loglik():
    found = mini_adapt_loglik(_table4(), "O_T", 2.0)
    assert found.verdict == "agrees"
    assert "(2.17x)" in found.ours
    # std up by 2x exactly is not "over a 2x increase"; a higher mean fails too
    assert mini_adapt_loglik(_table4(ot_ll_std=(1200.0, 2400.0)), "O_T", 2.0).verdict == (
        "disagrees"
    )
    assert mini_adapt_loglik(_table4(ot_ll=(-2.6e4, -2.5e4)), "O_T", 2.0).verdict == "disagrees"
    assert mini_adapt_loglik(_table4(), "O_X", 2.0) is None
    assert mini_adapt_loglik(_table4(ot_ll_std=(0.0, 10.0)), "O_T", 2.0).verdict == "not tested"


def test_mini_adapt_largest_change():
    found = mini_adapt_largest_change(_table4(), "O_P", "loglik_std")
    assert found.verdict == "agrees"
    assert found.ours.startswith("largest relative changes: loglik_std +43.2%")
    # the error's std changes more (3.7 -> 7.4: +100%) than the likelihood's: disagrees
    wider = _table4(op_std=(3.7, 7.4))
    assert mini_adapt_largest_change(wider, "O_P", "loglik_std").verdict == "disagrees"
    # the largest change is in the likelihood's std but a decrease: disagrees
    down = _table4(op_ll_std=(63.0, 20.0))
    assert mini_adapt_largest_change(down, "O_P", "loglik_std").verdict == "disagrees"
    with pytest.raises(ValueError, match="Table 4's columns"):
        mini_adapt_largest_change(_table4(), "O_P", "trials")


def test_mini_adapt_minor_tolerance_edges():
    within = tolerance("em_minor_change")
    edge = 100.0 * (1 + within)
    ok = mini_adapt_minor(_table4(ot_error=(100.0, edge)), "O_T", ("error_mean",))
    assert ok.verdict == "agrees" and "em_minor_change" in ok.notes
    over = mini_adapt_minor(_table4(ot_error=(100.0, edge + 0.01)), "O_T", ("error_mean",))
    assert over.verdict == "disagrees"
    down = mini_adapt_minor(
        _table4(ot_error=(100.0, 100.0 * (1 - within) - 0.01)), "O_T", ("error_mean",)
    )
    assert down.verdict == "disagrees"
    assert mini_adapt_minor(_table4(), "O_T", ("error_mean",)).verdict == "agrees"  # +3.0%


def test_mini_adapt_op_means_minor():
    means = ("error_mean", "loglik_mean", "iterations_mean")
    assert mini_adapt_minor(_table4(), "O_P", means).verdict == "agrees"
    # one mean changing by 10% is enough to fail
    moved = _table4(op_means=((48.0, 48.5), (-2.01e4, -2.01e4), (16.0, 17.6)))
    assert mini_adapt_minor(moved, "O_P", means).verdict == "disagrees"


def test_fig2_signs():
    up = {"r_iterations_mean": 1}
    stds = {"r_iterations_std": 1, "r_loglik_std": 1, "r_error_std": 1}
    found = fig2_signs(_table3(), 200, up)
    assert found.verdict == "agrees"
    assert found.ours == "r(mu) iterations +0.80 (adapt, n=200)"
    assert "ADAPT T2" in found.notes and "27 sharing levels" in found.notes
    assert fig2_signs(_table3(), 200, {"r_loglik_mean": -1}).verdict == "agrees"
    assert fig2_signs(_table3(), 200, stds).verdict == "agrees"
    flipped = _table3(adapt={"r_iterations_mean": -0.9, "r_loglik_mean": 0.3})
    assert fig2_signs(flipped, 200, up).verdict == "disagrees"
    assert fig2_signs(flipped, 200, {"r_loglik_mean": -1}).verdict == "disagrees"
    # any one std falling fails the std claim
    assert fig2_signs(_table3(adapt={"r_error_std": -0.2}), 200, stds).verdict == "disagrees"
    undefined = fig2_signs(_table3(adapt={"r_loglik_std": float("nan")}), 200, stds)
    assert undefined.verdict == "not tested" and "undefined" in undefined.notes
    elsewhere = fig2_signs(_table3(adapt_n=50), 200, up)
    assert elsewhere.verdict == "not tested" and elsewhere.ours == "adapt run at n = 50"
    no_adapt = _table3()
    assert fig2_signs(no_adapt[no_adapt["network"] != "adapt"], 200, up) is None


def test_complete_data_error_is_calibrated_never_agrees():
    close = complete_data_error(_metrics(16.337), 16.325)
    assert close.calibrated and close.verdict == "not tested"
    assert "calibrated" in close.notes
    far = complete_data_error(_metrics(18.0), 16.325)  # 10% off even after choosing the metric
    assert far.calibrated and far.verdict == "disagrees"


def _trials(levels, *, network="adapt", n=200, n_hidden=66):
    """Trials of one run: ``levels`` maps n_shared to a list of (error, loglik) per trial."""
    rows = [
        {"n_shared": k, "trial": i, "error": e, "loglik": ll}
        for k, ends in levels.items()
        for i, (e, ll) in enumerate(ends)
    ]
    return pd.DataFrame(rows).assign(network=network, n_samples=n, n_hidden=n_hidden, seed=1)


#: Fig. 5 as the paper: with sharing the error spreads out (range 10 -> 40) and goes lower.
FIG5 = {
    0: [(100.0, -1.0e4), (105.0, -1.01e4), (110.0, -1.02e4)],
    2: [(0.0, 0.0)],  # an intermediate level: dropped
    66: [(80.0, -1.0e4), (100.0, -1.03e4), (120.0, -1.05e4)],
}
#: Fig. 6 as the paper: 2 of 5 trials with sharing above every trial without.
FIG6 = {
    0: [(50.0, -1.215e4), (52.0, -1.22e4), (51.0, -1.205e4)],
    33: [(40.0, -1.19e4), (45.0, -1.195e4), (60.0, -1.21e4), (61.0, -1.21e4), (62.0, -1.21e4)],
}


def _endpoints(fig5=FIG5, fig6=FIG6, **kwargs):
    return endpoints_table(
        {"Fig. 5": _trials(fig5, **kwargs), "Fig. 6": _trials(fig6, n_hidden=33, **kwargs)}
    )


def test_endpoints_table_keeps_the_two_ends():
    table = _endpoints()
    assert tuple(table.columns) == ENDPOINT_COLUMNS
    assert list(zip(table["figure"], table["arm"], table["n_shared"], strict=True)) == [
        ("Fig. 5", "none", 0),
        ("Fig. 5", "all", 66),
        ("Fig. 6", "none", 0),
        ("Fig. 6", "all", 33),
    ]
    fig5 = table[table["figure"] == "Fig. 5"].set_index("arm")
    assert list(fig5["trials"]) == [3, 3]  # the level of 2 shared nodes is not an end
    assert fig5.loc["none", "error_range"] == pytest.approx(10.0)
    assert fig5.loc["all", ["error_min", "error_max", "error_range"]].tolist() == [80, 120, 40]
    assert fig5.loc["all", "loglik_at_error_min"] == -1.0e4
    assert fig5.loc["none", ["loglik_min", "loglik_max"]].tolist() == [-1.02e4, -1.0e4]
    assert pd.isna(fig5.loc["none", "above_best_none"])
    assert fig5.loc["all", "above_best_none"] == 0  # -1.0e4 ties the best: not above
    fig6 = table[table["figure"] == "Fig. 6"].set_index("arm")
    assert fig6.loc["all", "above_best_none"] == 2 and fig6.loc["all", "n_hidden"] == 33


def test_endpoints_table_edges():
    # no sharing trials: only the no-sharing row; no unshared trials: no count above them
    only_none = endpoints_table({"Fig. 6": _trials({0: FIG6[0]})})
    assert list(only_none["arm"]) == ["none"]
    only_all = endpoints_table({"Fig. 6": _trials({33: FIG6[33]})})
    assert list(only_all["arm"]) == ["all"] and pd.isna(only_all["above_best_none"].iloc[0])
    empty = endpoints_table({"Fig. 5": _trials(FIG5).iloc[:0]})
    assert empty.empty and tuple(empty.columns) == ENDPOINT_COLUMNS


def test_fig5_error_range():
    found = fig5_error_range(_endpoints(), 200)
    assert found.verdict == "agrees"
    assert found.ours.startswith("error range 10.0 -> 40.0 (4.0x); lowest error 100.0 -> 80.0")
    assert "ADAPT T2" in found.notes and "em_much_larger_range" in found.notes
    # the lowest error with sharing not below the lowest without: disagrees
    higher = FIG5 | {66: [(101.0, -1.0e4), (120.0, -1.03e4), (150.0, -1.05e4)]}
    assert fig5_error_range(_endpoints(fig5=higher), 200).verdict == "disagrees"
    # the range only 1.5x wider: not 'much larger'
    narrow = FIG5 | {66: [(95.0, -1.0e4), (100.0, -1.03e4), (110.0, -1.05e4)]}
    assert fig5_error_range(_endpoints(fig5=narrow), 200).verdict == "disagrees"


def test_fig5_error_range_tolerance_edges():
    factor = tolerance("em_much_larger_range")
    base = [(100.0, -1.0e4), (110.0, -1.01e4)]

    def widened(width):
        fig5 = {0: base, 66: [(99.0, -1.0e4), (99.0 + width, -1.02e4)]}
        return fig5_error_range(_endpoints(fig5=fig5), 200).verdict

    assert widened(10.0 * factor) == "agrees"
    assert widened(10.0 * factor - 0.01) == "disagrees"


def test_fig5_error_range_not_tested():
    assert fig5_error_range(_endpoints(), 200).verdict == "agrees"
    elsewhere = fig5_error_range(_endpoints(n=50), 200)
    assert elsewhere.verdict == "not tested" and "n=200" in elsewhere.notes
    unshared = fig5_error_range(_endpoints(fig5={0: FIG5[0]}), 200)
    assert unshared.verdict == "not tested" and unshared.notes == "no trials with sharing"
    single = fig5_error_range(_endpoints(fig5={0: FIG5[0][:1], 66: FIG5[66]}), 200)
    assert single.verdict == "not tested" and "at least 2 trials" in single.notes
    fig6_only = _endpoints()
    assert fig5_error_range(fig6_only[fig6_only["figure"] == "Fig. 6"], 200) is None


def test_fig6_loglik_above():
    found = fig6_loglik_above(_endpoints(), 200)
    assert found.verdict == "agrees"
    assert found.ours.startswith("2/5 trials with sharing end above the best ll without sharing")
    assert "ADAPT P1" in found.notes
    # no trial with sharing above the best without: disagrees
    below = FIG6 | {33: [(40.0, -1.213e4), (60.0, -1.23e4)]}
    assert fig6_loglik_above(_endpoints(fig6=below), 200).verdict == "disagrees"
    # every trial with sharing above: no 'rest' below them, disagrees
    above = FIG6 | {33: [(40.0, -1.19e4), (60.0, -1.2e4)]}
    assert fig6_loglik_above(_endpoints(fig6=above), 200).verdict == "disagrees"


def test_fig6_loglik_above_not_tested():
    assert fig6_loglik_above(_endpoints(n=50), 200).verdict == "not tested"
    unshared = fig6_loglik_above(_endpoints(fig6={0: FIG6[0]}), 200)
    assert unshared.verdict == "not tested" and unshared.notes == "no trials with sharing"
    no_none = fig6_loglik_above(_endpoints(fig6={33: FIG6[33]}), 200)
    assert no_none.verdict == "not tested" and no_none.notes == "no trials without sharing"
    fig5_only = _endpoints()
    assert fig6_loglik_above(fig5_only[fig5_only["figure"] == "Fig. 5"], 200) is None


def test_fig5_fig6_from_a_csv_round_trip(tmp_path):
    # the claims rule reads the table back from its CSV (the count becomes a float there)
    path = tmp_path / "endpoints.csv"
    _endpoints().to_csv(path, index=False)
    table = pd.read_csv(path)
    assert np.isnan(table["above_best_none"].iloc[0])
    assert fig5_error_range(table, 200).verdict == "agrees"
    assert fig6_loglik_above(table, 200).verdict == "agrees"


def test_em_findings_and_table(catalogs, paper3):
    table = paper_claims(
        catalogs["em"],
        _table3(),
        _table4(),
        _metrics(16.3),
        paper3,
        _endpoints(),
        _regions(),
        scale="laptop",
    )
    assert list(table["claim_id"]) == catalogs["em"].ids
    verdicts = table.set_index("claim_id")["verdict"]
    assert (verdicts.drop("em.complete_data_error") == "agrees").all()
    assert table.set_index("claim_id").loc["em.complete_data_error", "calibrated"]
    found = em_findings(catalogs["em"], _table3()[:0], _table4(), _metrics(16.3), paper3)
    assert "em.pigs_iteration_signs" not in found
    # without the endpoints and regions tables the figure claims are not run
    assert "em.fig5_error_range" not in found and "em.fig6_loglik_above" not in found
    assert not any(claim.startswith(("em.fig3", "em.fig4")) for claim in found)


#: Errors at convergence per (observables, sharing), shaped as the paper's Figs. 3-4: O_T four
#: regions (middle two most frequent) without sharing, three (outer two most frequent, further
#: apart) with; O_P with sharing, three trials beyond the range without, two of them below.
MINI = {
    ("O_T", "none"): [20.0] * 2 + [25.0] * 4 + [30.0] * 4 + [35.0] * 2,
    ("O_T", "SB"): [18.0] * 5 + [27.0] * 2 + [37.0] * 5,
    ("O_P", "none"): [24.0, 30.0, 33.0, 36.0, 40.0, 45.0] * 2,
    ("O_P", "SB"): [22.0, 23.0, 30.0, 33.0, 36.0, 40.0, 46.0, 30.0, 33.0, 36.0, 40.0, 44.0],
    ("O_C", "none"): [16.3] * 3,
}


def _mini_trials(errors=MINI):
    rows = [
        {"observables": obs, "sharing": sharing, "trial": i, "error": e}
        for (obs, sharing), values in errors.items()
        for i, e in enumerate(values)
    ]
    return pd.DataFrame(rows)


def _regions(errors=MINI):
    return error_regions_table(_mini_trials(errors))


def test_error_regions_table():
    table = _regions()
    assert tuple(table.columns) == REGION_COLUMNS
    assert list(zip(table["observables"], table["sharing"], strict=True)) == [
        ("O_P", "none"),
        ("O_P", "SB"),
        ("O_T", "none"),
        ("O_T", "SB"),
    ]  # O_C (no hidden node) left out, no sharing first
    rows = table.set_index(["observables", "sharing"])
    ot_none, ot_sb = rows.loc[("O_T", "none")], rows.loc[("O_T", "SB")]
    # middle half of 20..35 is 23.75..31.25: the 8 trials at 25 and 30 of 12
    assert ot_none["middle_half_share"] == pytest.approx(8 / 12)
    assert ot_sb["middle_half_share"] == pytest.approx(2 / 12)  # 18..37: 22.75..32.25
    assert ot_none[["error_min", "error_max", "trials"]].tolist() == [20.0, 35.0, 12]
    assert ot_sb["error_spread_p10_p90"] == pytest.approx(
        np.percentile(MINI[("O_T", "SB")], 90) - np.percentile(MINI[("O_T", "SB")], 10)
    )
    assert pd.isna(ot_none["below_none_min"]) and pd.isna(ot_none["above_none_max"])
    op_sb = rows.loc[("O_P", "SB")]
    assert (op_sb["below_none_min"], op_sb["above_none_max"]) == (2, 1)
    assert (ot_sb["below_none_min"], ot_sb["above_none_max"]) == (5, 5)
    # every trial at one error: the whole (empty) range is its middle half
    flat = error_regions_table(_mini_trials({("O_T", "none"): [5.0, 5.0]}))
    assert flat["middle_half_share"].item() == 1.0 and pd.isna(flat["below_none_min"].item())
    only_sb = error_regions_table(_mini_trials({("O_T", "SB"): [1.0, 2.0]}))
    assert list(only_sb["sharing"]) == ["SB"] and pd.isna(only_sb["below_none_min"].item())


def test_fig4_ot_middle_vs_ends():
    found = fig4_ot_middle_vs_ends(_regions())
    assert found.verdict == "agrees" and "66.7%" in found.ours
    # sharing that keeps the trials in the middle: disagrees
    middle = MINI | {("O_T", "SB"): [18.0] + [27.0] * 10 + [37.0]}
    assert fig4_ot_middle_vs_ends(_regions(middle)).verdict == "disagrees"
    # without sharing at the ends too: disagrees
    ends = MINI | {("O_T", "none"): [20.0] * 6 + [35.0] * 6}
    assert fig4_ot_middle_vs_ends(_regions(ends)).verdict == "disagrees"
    # exactly half in the middle without sharing is not "most"
    half = MINI | {("O_T", "none"): [20.0] * 3 + [25.0] * 3 + [30.0] * 3 + [35.0] * 3}
    assert fig4_ot_middle_vs_ends(_regions(half)).verdict == "disagrees"
    assert fig4_ot_middle_vs_ends(_regions({("O_T", "none"): [1.0, 2.0]})) is None


def test_fig4_ot_outer_apart():
    assert fig4_ot_outer_apart(_regions()).verdict == "agrees"
    closer = MINI | {("O_T", "SB"): [22.0] * 5 + [27.0] * 2 + [33.0] * 5}
    assert fig4_ot_outer_apart(_regions(closer)).verdict == "disagrees"
    assert fig4_ot_outer_apart(_regions({("O_P", "none"): [1.0], ("O_P", "SB"): [2.0]})) is None


def test_fig3_op_extremes_smaller():
    found = fig3_op_extremes_smaller(_regions())
    assert found.verdict == "agrees" and "2 below, 1 above" in found.ours
    # mostly larger: disagrees
    larger = MINI | {("O_P", "SB"): [23.0, 30.0, 33.0, 36.0, 40.0, 46.0, 47.0] + [30.0] * 5}
    assert fig3_op_extremes_smaller(_regions(larger)).verdict == "disagrees"
    # none more extreme: disagrees
    inside = MINI | {("O_P", "SB"): [30.0] * 12}
    assert fig3_op_extremes_smaller(_regions(inside)).verdict == "disagrees"
    # half or more outside is not "a few"
    many = MINI | {("O_P", "SB"): [10.0] * 4 + [50.0] * 2 + [30.0] * 6}
    assert fig3_op_extremes_smaller(_regions(many)).verdict == "disagrees"


def test_error_regions_from_a_csv_round_trip(tmp_path):
    path = tmp_path / "error_regions.csv"
    _regions().to_csv(path, index=False)
    table = pd.read_csv(path)
    assert fig3_op_extremes_smaller(table).verdict == "agrees"
    assert fig4_ot_middle_vs_ends(table).verdict == "agrees"
    assert fig4_ot_outer_apart(table).verdict == "agrees"
