"""TAN claims: an agreeing and a disagreeing case of every claim builder."""

from __future__ import annotations

import pandas as pd
import pytest

from bnstudy.studies.claims import read_catalog
from bnstudy.studies.tan.claims import PAIRWISE, paper_claims, tan_findings


@pytest.fixture(scope="module")
def catalogs(repo_root):
    path = repo_root / "workflow" / "published" / "claims.tsv"
    return {p: read_catalog(path, p) for p in ("tan", "em", "mrf", "lsbn")}


DATASETS = ("bnc_satimage", "bnc_letter", "bnc_usps", "mnist")


def _selected(errors: dict[str, float], datasets=DATASETS) -> pd.DataFrame:
    rows = [
        {"dataset": d, "model": m, "error_best_test": e}
        for d in datasets
        for m, e in errors.items()
        if not (m in ("tan_all", "pseudo_tan") and d != "bnc_letter")
    ]
    return pd.DataFrame(rows)


#: Errors as the paper describes them: ML worst, NB, then random TAN/Chow-Liu, then TAN Subset.
PAPER_LIKE = {
    "nb_ml": 0.30,
    "chow_liu_ml": 0.25,
    "nb": 0.20,
    "tan_random": 0.15,
    "chow_liu": 0.14,
    "tan_subset": 0.09,
    "tan_all": 0.095,
    "pseudo_tan": 0.085,
}


def _runs(best: str, datasets=("mnist",)) -> pd.DataFrame:
    rows = [
        {"model": "tan_heuristic", "protocol": "test", "dataset": d, "ordering": o, "error": e}
        for d in datasets
        for o, e in {"A": 0.05, "B": 0.04, "C": 0.045}.items()
    ]
    runs = pd.DataFrame(rows)
    runs.loc[runs["ordering"] == best, "error"] = 0.01
    return runs


def test_paper_like_errors_agree_everywhere(catalogs):
    found = tan_findings(catalogs["tan"], _selected(PAPER_LIKE), _runs("C"))
    assert {k: f.verdict for k, f in found.items()} == dict.fromkeys(found, "agrees")
    assert set(found) == {*PAIRWISE, "tan.letter_best_error", "tan.pseudo_tan_gain"} | {
        "tan.heuristic_c_best"
    }


@pytest.mark.parametrize(
    ("claim_id", "change"),
    [
        ("tan.ml_worse_nb", {"nb_ml": 0.10}),
        ("tan.ml_worse_chow_liu", {"chow_liu_ml": 0.10}),
        ("tan.tan_random_beats_nb", {"tan_random": 0.25}),
        ("tan.subset_beats_random_chow_liu", {"tan_subset": 0.145}),
        ("tan.letter_best_error", {"tan_subset": 0.2, "tan_all": 0.2, "pseudo_tan": 0.2}),
        ("tan.pseudo_tan_gain", {"pseudo_tan": 0.0875 + 0.01}),
    ],
)
def test_each_claim_disagrees_when_ours_contradict_it(catalogs, claim_id, change):
    found = tan_findings(catalogs["tan"], _selected(PAPER_LIKE | change), _runs("C"))
    assert found[claim_id].verdict == "disagrees"


def test_letter_best_error_tolerance_edges(catalogs):
    # 8.73% is the target; tolerance 1 point
    near = tan_findings(catalogs["tan"], _selected(PAPER_LIKE | {"pseudo_tan": 0.0963}), _runs("C"))
    far = tan_findings(
        catalogs["tan"],
        _selected(PAPER_LIKE | {"pseudo_tan": 0.0975, "tan_subset": 0.099, "tan_all": 0.099}),
        _runs("C"),
    )
    assert near["tan.letter_best_error"].verdict == "agrees"
    assert far["tan.letter_best_error"].verdict == "disagrees"


def test_fewer_datasets_make_a_claim_partial(catalogs):
    found = tan_findings(
        catalogs["tan"], _selected(PAPER_LIKE, datasets=("bnc_letter",)), _runs("C")
    )
    assert found["tan.ml_worse_nb"].verdict == "partial"
    assert "1 of the paper's 4" in found["tan.ml_worse_nb"].notes


def test_heuristic_ordering(catalogs):
    sel = _selected(PAPER_LIKE)
    assert tan_findings(catalogs["tan"], sel, _runs("B"))["tan.heuristic_c_best"].verdict == (
        "disagrees"
    )
    usps = tan_findings(catalogs["tan"], sel, _runs("C", datasets=("bnc_usps",)))
    assert usps["tan.heuristic_c_best"].verdict == "partial"


def test_paper_claims_lists_every_catalog_claim(catalogs):
    table = paper_claims(
        catalogs["tan"], _selected({"nb": 0.2, "nb_ml": 0.3}), _runs("C")[:0], scale="smoke"
    )
    assert list(table["claim_id"]) == catalogs["tan"].ids
    assert table.set_index("claim_id").loc["tan.pseudo_tan_gain", "verdict"] == "not tested"
