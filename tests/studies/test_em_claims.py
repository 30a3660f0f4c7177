"""EM claims: an agreeing and a disagreeing case of every claim builder."""

from __future__ import annotations

import pandas as pd
import pytest

from bnstudy.studies.claims import read_catalog, tolerance
from bnstudy.studies.em.claims import (
    complete_data_error,
    em_findings,
    error_spread,
    fig2_signs,
    mini_adapt_change,
    mini_adapt_largest_change,
    mini_adapt_loglik,
    mini_adapt_minor,
    paper_claims,
    pigs_iteration_signs,
    relative_change,
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


def test_em_findings_and_table(catalogs, paper3):
    table = paper_claims(
        catalogs["em"], _table3(), _table4(), _metrics(16.3), paper3, scale="laptop"
    )
    assert list(table["claim_id"]) == catalogs["em"].ids
    verdicts = table.set_index("claim_id")["verdict"]
    assert (verdicts.drop("em.complete_data_error") == "agrees").all()
    assert table.set_index("claim_id").loc["em.complete_data_error", "calibrated"]
    found = em_findings(catalogs["em"], _table3()[:0], _table4(), _metrics(16.3), paper3)
    assert "em.pigs_iteration_signs" not in found
