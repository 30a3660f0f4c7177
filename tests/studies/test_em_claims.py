"""EM claims: an agreeing and a disagreeing case of every claim builder."""

from __future__ import annotations

import pandas as pd
import pytest

from bnstudy.studies.claims import read_catalog
from bnstudy.studies.em.claims import (
    complete_data_error,
    em_findings,
    error_spread,
    mini_adapt_change,
    paper_claims,
    pigs_iteration_signs,
)


@pytest.fixture(scope="module")
def catalogs(repo_root):
    path = repo_root / "workflow" / "published" / "claims.tsv"
    return {p: read_catalog(path, p) for p in ("tan", "em", "mrf", "lsbn")}


PAPER_N = (25, 50, 100, 200, 400)


@pytest.fixture(scope="module")
def paper3(repo_root):
    return pd.read_csv(repo_root / "workflow/published/em_table3.tsv", sep="\t", comment="#")


def _table3(ns=PAPER_N, signs=(1, 1, -1, -1, -1), spread=0.5):
    rows = [
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


def _table4(ot_std=(7.0, 14.0), op_std=(3.7, 3.9), ot_iter=(8.6, 6.6)):
    rows = []
    for sharing, i in (("none", 0), ("SB", 1)):
        rows.append(
            {
                "sharing": sharing,
                "observables": "O_T",
                "error_std": ot_std[i],
                "iterations_mean": ot_iter[i],
            }
        )
        rows.append(
            {
                "sharing": sharing,
                "observables": "O_P",
                "error_std": op_std[i],
                "iterations_mean": 10.0,
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
