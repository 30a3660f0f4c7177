"""The claims contract: verdicts, records, the catalog and the named tolerances."""

from __future__ import annotations

import pandas as pd
import pytest

from bnstudy.studies.claims import (
    CATALOG_COLUMNS,
    COLUMNS,
    PAPERS,
    TOLERANCES,
    VERDICTS,
    Catalog,
    Finding,
    assemble,
    judge,
    read_catalog,
    read_claims,
    tally,
    tolerance,
)


@pytest.fixture(scope="module")
def catalogs(repo_root):
    path = repo_root / "workflow" / "published" / "claims.tsv"
    return {p: read_catalog(path, p) for p in ("tan", "em", "mrf", "lsbn")}


@pytest.fixture(scope="module")
def catalog_path(repo_root):
    return repo_root / "workflow" / "published" / "claims.tsv"


def _catalog(**value):
    rows = pd.DataFrame(
        {
            "paper": ["em", "em"],
            "claim_id": ["em.a", "em.b"],
            "claim": ["a holds", "b holds"],
            "source": ["Table 3", "Table 4"],
            "paper_value": ["+", "16.325"],
            "value": ["", value.get("b", "16.325")],
            "evidence": ["reports/em/tables/table3.csv", ""],
        }
    )
    return Catalog("em", rows)


def test_judge_covers_every_case():
    assert judge(True) == "agrees"
    assert judge(True, complete=False) == "partial"
    assert judge(False) == "disagrees"
    assert judge(False, complete=False) == "disagrees"
    assert judge(None) == "not tested"
    assert judge(None, complete=False) == "not tested"


def test_finding_rejects_unknown_verdict_wall_clock_and_calibrated_agreement():
    with pytest.raises(ValueError, match="verdict"):
        Finding("1", "yes")
    with pytest.raises(ValueError, match="wall-clock"):
        Finding("n=100: ExactL 0.2, MH 6.7 s", "agrees")
    with pytest.raises(ValueError, match="wall-clock"):
        Finding("1", "agrees", notes="took 3 min")
    with pytest.raises(ValueError, match="calibrated"):
        Finding("16.3", "agrees", calibrated=True)
    # numbers next to words that merely start with a unit letter are not times
    Finding("error lower at 1/1 sample sizes, 2 sizes, 3 higher", "agrees")


def test_assemble_keeps_catalog_order_and_marks_missing_claims_not_tested():
    table = assemble(_catalog(), {"em.b": Finding("16.3", "disagrees", "off")}, scale="laptop")
    assert list(table.columns) == list(COLUMNS)
    assert list(table["claim_id"]) == ["em.a", "em.b"]
    assert list(table["verdict"]) == ["not tested", "disagrees"]
    assert table.loc[0, "ours"] == "not run"
    assert set(table["scale"]) == {"laptop"}
    assert table.loc[1, "paper_value"] == "16.325"


def test_assemble_rejects_unknown_claims_and_empty_scale():
    with pytest.raises(ValueError, match="em.zzz"):
        assemble(_catalog(), {"em.zzz": Finding("1", "agrees")}, scale="laptop")
    with pytest.raises(ValueError, match="scale"):
        assemble(_catalog(), {}, scale="")


def test_catalog_values(tmp_path):
    cat = _catalog()
    assert cat.value("em.b") == 16.325
    assert cat.values("em.a") == ()
    with pytest.raises(ValueError, match="one value"):
        cat.value("em.a")
    with pytest.raises(ValueError, match="no claim"):
        cat.entry("em.nope")
    with pytest.raises(ValueError, match="not a comma-separated"):
        _catalog(b="about 16").values("em.b")
    rows = pd.concat([cat.rows, cat.rows.iloc[:1]])
    with pytest.raises(ValueError, match="duplicate"):
        Catalog("em", rows)


def test_read_catalog_and_claims_roundtrip(tmp_path):
    path = tmp_path / "claims.tsv"
    _catalog().rows.to_csv(path, sep="\t", index=False)
    cat = read_catalog(path, "em")
    assert cat.ids == ["em.a", "em.b"]
    with pytest.raises(ValueError, match="no claims of paper 'tan'"):
        read_catalog(path, "tan")
    with pytest.raises(ValueError, match="not in"):
        read_catalog(path, "nope")
    out = tmp_path / "em.csv"
    table = assemble(cat, {"em.b": Finding("16.3", "not tested", calibrated=True)}, scale="x")
    table.to_csv(out, index=False)
    back = read_claims(out)
    assert list(back["calibrated"]) == [False, True]
    assert list(back["verdict"]) == ["not tested", "not tested"]
    bad = table.assign(verdict=["agrees", "yes"])
    bad.to_csv(out, index=False)
    with pytest.raises(ValueError, match="unknown verdicts"):
        read_claims(out)
    table.drop(columns="scale").to_csv(out, index=False)
    with pytest.raises(ValueError, match="scale"):
        read_claims(out)


def test_tally_counts_in_verdict_order():
    assert tally(["partial", "agrees", "agrees"]) == {
        "agrees": 2,
        "partial": 1,
        "disagrees": 0,
        "not tested": 0,
    }
    with pytest.raises(ValueError):
        tally(["maybe"])


def test_tolerances_are_named_positive_and_justified():
    assert TOLERANCES
    for name, tol in TOLERANCES.items():
        assert name.split("_")[0] in PAPERS, name
        assert tol.value > 0, name
        assert len(tol.why) > 40, name
    assert tolerance("em_error_ratio") == TOLERANCES["em_error_ratio"].value
    with pytest.raises(ValueError, match="unknown tolerance"):
        tolerance("nope")


def test_published_catalog_is_well_formed(catalog_path, catalogs):
    table = pd.read_csv(catalog_path, sep="\t", comment="#", dtype=str, keep_default_na=False)
    assert tuple(table.columns) == CATALOG_COLUMNS
    assert table["claim_id"].is_unique
    for paper, cat in catalogs.items():
        assert all(i.startswith(f"{paper}.") for i in cat.ids)
        for claim_id in cat.ids:
            entry = cat.entry(claim_id)
            assert entry["claim"] and entry["source"] and entry["paper_value"], claim_id
            assert entry["evidence"].startswith(f"reports/{paper}/"), claim_id
            cat.values(claim_id)  # parses
    assert VERDICTS == ("agrees", "partial", "disagrees", "not tested")
